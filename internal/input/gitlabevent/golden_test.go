package gitlabevent

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json and testdata/*.golden.json")

const issue, mr = gitlabsim.NoteableIssue, gitlabsim.NoteableMergeRequest

// cases make one change in a fresh fixture and return its webhook body.
var cases = map[string]func(t *testing.T, f *fixture) ([]byte, error){
	"issue_open": func(_ *testing.T, f *fixture) ([]byte, error) { return f.hooks["issue_open"], nil },
	"issue_close": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.SetState("acme/platform", issue, 1, f.alice.ID, "close")
	},
	"issue_reopen": func(t *testing.T, f *fixture) ([]byte, error) {
		_, err := f.sim.SetState("acme/platform", issue, 1, f.alice.ID, "close")
		must(t, err)
		return f.sim.SetState("acme/platform", issue, 1, f.bob.ID, "reopen")
	},
	"issue_edit": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.Edit("acme/platform", issue, 1, f.bob.ID, "Importer drops owners of nested groups")
	},
	"issue_label_added": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.ChangeLabels("acme/platform", issue, 1, f.bob.ID, []string{"fullsend-triage"}, nil)
	},
	"issue_note": func(_ *testing.T, f *fixture) ([]byte, error) {
		_, b, err := f.sim.AddNote("acme/platform", issue, 1, f.bob.ID, "/fs-triage check the acceptance criteria\nthanks")
		return b, err
	},
	"mr_open":      func(_ *testing.T, f *fixture) ([]byte, error) { return f.hooks["mr_open"], nil },
	"mr_fork_open": func(_ *testing.T, f *fixture) ([]byte, error) { return f.hooks["mr_fork_open"], nil },
	"mr_push": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.Push("acme/platform", 1, f.alice.ID, "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432")
	},
	"mr_label_removed": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.ChangeLabels("acme/platform", mr, 1, f.alice.ID, nil, []string{"review"})
	},
	"mr_merge": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.SetState("acme/platform", mr, 1, f.alice.ID, "merge")
	},
	"mr_close": func(_ *testing.T, f *fixture) ([]byte, error) {
		return f.sim.SetState("acme/platform", mr, 2, f.alice.ID, "close")
	},
	"mr_note": func(_ *testing.T, f *fixture) ([]byte, error) {
		_, b, err := f.sim.AddNote("acme/platform", mr, 1, f.alice.ID, "/fs-review focus on the importer")
		return b, err
	},
	"mr_note_bot": func(_ *testing.T, f *fixture) ([]byte, error) {
		_, b, err := f.sim.AddNote("acme/platform", mr, 1, f.botUser.ID, "Pipeline finished.")
		return b, err
	},
	"mr_fork_note": func(_ *testing.T, f *fixture) ([]byte, error) {
		_, b, err := f.sim.AddNote("acme/platform", mr, 2, f.mallory.ID, "/fs-review please")
		return b, err
	},
}

// TestGolden: each change in the emulator yields the webhook body in
// testdata/NAME.json, and the driver maps that body, confirmed against the
// emulator, to exactly testdata/NAME.golden.json.
func TestGolden(t *testing.T) {
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			hook, err := change(t, f)
			must(t, err)
			bodyPath := filepath.Join("testdata", name+".json")
			goldenPath := filepath.Join("testdata", name+".golden.json")
			if *update {
				must(t, os.WriteFile(bodyPath, hook, 0o644))
			}
			body, err := os.ReadFile(bodyPath)
			must(t, err)
			if !bytes.Equal(body, hook) {
				t.Fatalf("%s differs from the emulator's webhook body (run with -update):\n%s", bodyPath, hook)
			}
			evs, err := f.read(t, body)
			must(t, err)
			got, err := json.MarshalIndent(evs[0], "", "  ")
			must(t, err)
			got = append(got, '\n')
			if *update {
				must(t, os.WriteFile(goldenPath, got, 0o644))
			}
			want, err := os.ReadFile(goldenPath)
			must(t, err)
			if !bytes.Equal(got, want) {
				t.Fatalf("event differs from %s:\ngot  %s\nwant %s", goldenPath, got, want)
			}
		})
	}
}

// TestMergeRequestNoteSharesScope: a note on a merge request and the merge
// request's own events have one scope key; an issue with the same iid
// does not share it.
func TestMergeRequestNoteSharesScope(t *testing.T) {
	f := newFixture(t)
	key := func(body []byte) scope.Key {
		evs, err := f.read(t, body)
		must(t, err)
		return scope.KeyOf("review", evs[0], "gitlab")
	}
	_, note, err := f.sim.AddNote("acme/platform", mr, 1, f.alice.ID, "/fs-review")
	must(t, err)
	push, err := f.sim.Push("acme/platform", 1, f.alice.ID, "1111111111111111111111111111111111111111")
	must(t, err)
	want := scope.Key("review:acme/platform:gitlab:change_proposal:1")
	for name, body := range map[string][]byte{"note": note, "push": push} {
		if got := key(body); got != want {
			t.Errorf("%s: scope key %q, want %q", name, got, want)
		}
	}
	_, issueNote, err := f.sim.AddNote("acme/platform", issue, 1, f.bob.ID, "hi")
	must(t, err)
	if got := key(issueNote); got == want {
		t.Errorf("issue 1 note shares the scope of merge request 1: %q", got)
	}
}

func readTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name+".json"))
}
