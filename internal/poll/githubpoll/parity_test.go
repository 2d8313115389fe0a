package githubpoll

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestParity: for every kind of change the backstop reconciles, the
// emulator's webhook delivery mapped by gha-event and the same change
// found by github-poll marshal to identical NormalizedEvents, at the
// same change position (so with the same idempotency key).
func TestParity(t *testing.T) {
	open := func(f *fixture, spec githubsim.IssueSpec) int {
		n, _, err := f.sim.OpenIssue(repo, spec)
		must(t, err)
		f.clk.Advance(time.Second)
		return n
	}
	issue := githubsim.IssueSpec{Title: "Importer drops owners", Body: "see logs", Author: "alice"}
	pr := githubsim.IssueSpec{Title: "Fix importer", Body: "fixes #1", Author: "alice", PullRequest: true}
	fork := githubsim.IssueSpec{Title: "Drive-by", Body: "", Author: "bob", PullRequest: true, HeadRepo: "bob/platform"}
	comment := func(spec githubsim.IssueSpec, author, body string) func(*fixture) githubsim.Delivery {
		return func(f *fixture) githubsim.Delivery {
			_, d, err := f.sim.AddComment(repo, open(f, spec), author, body)
			must(t, err)
			return d
		}
	}
	label := func(spec githubsim.IssueSpec, add bool) func(*fixture) githubsim.Delivery {
		return func(f *fixture) githubsim.Delivery {
			d, err := f.sim.SetLabel(repo, open(f, spec), "mara", "fs:triage", add)
			must(t, err)
			return d
		}
	}
	labelled := issue
	labelled.Labels = []string{"fs:triage", "bug"}
	cases := []struct {
		name   string
		change func(*fixture) githubsim.Delivery
	}{
		{"issue opened", func(f *fixture) githubsim.Delivery {
			_, d, err := f.sim.OpenIssue(repo, issue)
			must(t, err)
			return d
		}},
		{"pull request opened", func(f *fixture) githubsim.Delivery {
			_, d, err := f.sim.OpenIssue(repo, pr)
			must(t, err)
			return d
		}},
		{"comment on issue", comment(issue, "mara", "/fs-triage please look")},
		{"comment on pull request", comment(pr, "mara", "/fs-review")},
		{"comment on fork pull request", comment(fork, "bob", "/fs-review mine")},
		{"long comment", comment(issue, "alice", strings.Repeat("é", 5000))},
		{"bot comment", comment(issue, "renovate[bot]", "/fs-triage")},
		{"issue labeled", label(issue, true)},
		{"issue unlabeled", label(labelled, false)},
		{"pull request labeled", label(pr, true)},
		{"review submitted", func(f *fixture) githubsim.Delivery {
			_, d, err := f.sim.SubmitReview(repo, open(f, pr), "mara", "APPROVED", "lgtm")
			must(t, err)
			return d
		}},
	}
	// checks: what each event must show, beyond both paths agreeing.
	checks := map[string]func(*event.Event) bool{
		"comment on issue": func(ev *event.Event) bool {
			return ev.Actor.Role == event.RoleMaintain && ev.Transition.Comment.Command == "/fs-triage"
		},
		"comment on fork pull request": func(ev *event.Event) bool {
			return ev.State.ChangeProposal.IsFork && ev.State.ChangeProposal.HeadRepo == "bob/platform"
		},
		"comment on pull request": func(ev *event.Event) bool { return !ev.State.ChangeProposal.IsFork },
		"long comment":            func(ev *event.Event) bool { return len([]rune(ev.Transition.Comment.Body)) == 4096 },
		"bot comment":             func(ev *event.Event) bool { return ev.Actor.Kind == event.ActorBot && ev.Actor.Role == event.RoleNone },
		"issue unlabeled": func(ev *event.Event) bool {
			return ev.Transition.Label.Action == "removed" && len(ev.State.Labels) == 1
		},
		"review submitted": func(ev *event.Event) bool { return ev.Transition.Review.State == "approved" },
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			d := tc.change(f)
			lk := f.lookup()
			drv, err := ghaevent.New(ghaevent.Options{EventName: d.Event, Payload: d.Payload, Repo: repo, Permissions: lk, Pulls: lk})
			must(t, err)
			hook, err := drv.Read(ctx)
			must(t, err)
			at := drv.ChangePos()
			if at.IsZero() {
				t.Fatal("gha-event gives the change no position")
			}
			want, err := json.Marshal(hook)
			must(t, err)
			p := f.poller(t)
			floor, _ := p.window()
			subs, err := p.scan(ctx, floor)
			must(t, err)
			var got []byte
			for _, s := range subs {
				chs, err := p.changes(ctx, newLookups(p.o.Client), s, floor, nil)
				must(t, err)
				for _, c := range chs {
					if c.Pos() == at && c.Event.Source.RawType == hook.Source.RawType {
						got, err = json.Marshal(c.Event)
						must(t, err)
					}
				}
			}
			if got == nil {
				t.Fatalf("github-poll found no %s change at %s", d.Event, at)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("events differ:\ngha-event   %s\ngithub-poll %s", want, got)
			}
			if check := checks[tc.name]; check != nil && !check(hook) {
				t.Fatalf("the event does not show what the change is: %s", want)
			}
		})
	}
}
