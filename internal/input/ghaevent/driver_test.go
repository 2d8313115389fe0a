package ghaevent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

func load(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestReadErrors(t *testing.T) {
	noSender := load(t, "issues.opened")
	delete(noSender, "sender")
	badReview := load(t, "pull_request_review.submitted")
	badReview["review"].(map[string]any)["state"] = "PENDING"
	noRepo := load(t, "issues.opened")
	delete(noRepo, "repository")
	noLabel := load(t, "issues.labeled")
	delete(noLabel, "label")
	tests := []struct {
		name, event string
		payload     []byte
		path        string
		want        string
	}{
		{"unsupported event", "push", []byte(`{}`), "", `unsupported event "push": gha-event handles issue_comment, issues, pull_request`},
		{"unsupported action", "issues", mustJSON(map[string]any{"action": "assigned"}), "", `unsupported issues action "assigned": supported are closed, edited`},
		{"comment edits are not supported", "issue_comment", mustJSON(map[string]any{"action": "edited"}), "", `unsupported issue_comment action "edited"`},
		{"invalid JSON", "issues", []byte(`{"action":`), "", "payload is not a valid issues event"},
		{"no sender", "issues", mustJSON(noSender), "", "no sender.login"},
		{"bad review state", "pull_request_review", mustJSON(badReview), "", `review.state "PENDING"`},
		{"no repository", "issues", mustJSON(noRepo), "", "no repository.full_name"},
		{"labeled without label", "issues", mustJSON(noLabel), "", "has no label.name"},
		{"missing issue", "issues", []byte(`{"action":"opened","repository":{"full_name":"acme/platform"},"sender":{"login":"a"}}`), "", "lacks number or html_url"},
		{"missing file", "issues", nil, "testdata/nope.json", "payload file"},
		{"oversized", "issues", bytes.Repeat([]byte(" "), MaxPayloadBytes+1), "", "larger than 25 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := New(Options{EventName: tt.event, Payload: tt.payload, Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := d.Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read = %v, %v; want error containing %q", ev, err, tt.want)
			}
		})
	}
	if _, err := New(Options{Payload: []byte("{}")}); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_NAME") {
		t.Errorf("New without event name: %v", err)
	}
	if _, err := New(Options{EventName: "issues"}); err == nil || !strings.Contains(err.Error(), "GITHUB_EVENT_PATH") {
		t.Errorf("New without payload: %v", err)
	}
}

func TestActorRole(t *testing.T) {
	tests := []struct {
		name, login, typ string
		roles            map[string]string
		wantKind         string
		wantRole         event.Role
		wantLog          string
		lookups          int
	}{
		{"admin", "alice", "User", map[string]string{"alice": "admin"}, "human", "admin", "", 1},
		{"triage", "alice", "User", map[string]string{"alice": "triage"}, "human", "triage", "", 1},
		{"maintain", "alice", "User", map[string]string{"alice": "maintain"}, "human", "maintain", "", 1},
		{"external is not a GitHub role", "alice", "User", map[string]string{"alice": "external"}, "human", "none", "unknown collaborator permission", 1},
		{"custom role is none", "alice", "User", map[string]string{"alice": "security-reviewer"}, "human", "none", "unknown collaborator permission", 1},
		{"failed lookup is none", "alice", "User", map[string]string{}, "human", "none", "permission lookup failed", 1},
		{"bot by suffix", "dependabot[bot]", "User", map[string]string{"dependabot[bot]": "write"}, "bot", "none", "", 0},
		{"bot by type", "helper", "Bot", map[string]string{"helper": "write"}, "bot", "none", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, "issue_comment.created")
			p["sender"] = map[string]any{"login": tt.login, "type": tt.typ}
			lk := &fakeLookup{roles: tt.roles}
			var logs bytes.Buffer
			d, _ := New(Options{EventName: "issue_comment", Payload: mustJSON(p), Permissions: lk,
				Log: slog.New(slog.NewTextHandler(&logs, nil))})
			ev, err := d.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if ev.Actor.Kind != tt.wantKind || ev.Actor.Role != tt.wantRole || ev.Actor.ID != tt.login {
				t.Errorf("actor = %+v, want %s/%s", ev.Actor, tt.wantKind, tt.wantRole)
			}
			if lk.calls != tt.lookups {
				t.Errorf("lookups = %d, want %d", lk.calls, tt.lookups)
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q lacks %q", logs.String(), tt.wantLog)
			}
		})
	}
}

func TestPRCommentFailsClosedWithoutPull(t *testing.T) {
	for _, lk := range []*fakeLookup{nil, {roles: map[string]string{"mara": "write"}}} {
		o := Options{EventName: "issue_comment", Path: "testdata/issue_comment.created-pr.json"}
		if lk != nil {
			o.Permissions, o.Pulls = lk, lk
		}
		d, _ := New(o)
		ev, err := d.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cp := ev.State.ChangeProposal
		if cp == nil || !cp.IsFork || cp.HeadRepo != "" || cp.BaseRepo != "acme/platform" || cp.AuthorID != "bob-outside" {
			t.Errorf("change proposal = %+v, want a fork with unknown head", cp)
		}
	}
}

func TestLimitsAndTargetRepo(t *testing.T) {
	p := load(t, "issue_comment.created")
	long := "/fs-triage " + strings.Repeat("é", 5000)
	p["comment"].(map[string]any)["body"] = long
	labels := []any{}
	for range 1200 {
		labels = append(labels, map[string]any{"name": strings.Repeat("l", 300)})
	}
	labels = append(labels, map[string]any{"name": ""})
	p["issue"].(map[string]any)["labels"] = labels
	d, _ := New(Options{EventName: "issue_comment", Payload: mustJSON(p), Repo: "acme/target"})
	ev, err := d.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := ev.Transition.Comment
	if n := utf8.RuneCountInString(c.Body); n != event.MaxCommentBody {
		t.Errorf("body has %d code points, want %d", n, event.MaxCommentBody)
	}
	if c.Command != "/fs-triage" || utf8.RuneCountInString(c.Instruction) > event.MaxInstruction {
		t.Errorf("command %q, instruction of %d code points", c.Command, utf8.RuneCountInString(c.Instruction))
	}
	if len(ev.State.Labels) != 1000 || len(ev.State.Labels[0]) != 255 {
		t.Errorf("labels: %d, first %d long", len(ev.State.Labels), len(ev.State.Labels[0]))
	}
	if ev.Repo != "acme/target" {
		t.Errorf("repo = %q, want the configured target", ev.Repo)
	}
}

// TestLookupAgainstEmulator runs the go-github lookups against the GitHub
// emulator: roles, an unknown user, and a pull request comment completed
// from the pulls API.
func TestLookupAgainstEmulator(t *testing.T) {
	s := githubsim.New(githubsim.Options{Token: "t", Repos: []githubsim.Repo{{FullName: "acme/platform"}}})
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for login, role := range map[string]string{"mara": "maintain", "alice": "triage"} {
		_ = s.SetPermission("acme/platform", login, role)
	}
	_ = s.AddPullRequest("acme/platform", githubsim.PullRequest{Number: 42, Author: "bob-outside", HeadRepo: "bob-outside/platform",
		HeadRef: "main", BaseRef: "main", HeadSHA: strings.Repeat("c", 40)})
	c, err := github.NewClient(u, "t", github.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client().CloseIdleConnections()
	lk := NewLookup(c)
	lk.Policy.MaxRetries = -1
	var logs bytes.Buffer
	d, _ := New(Options{EventName: "issue_comment", Path: "testdata/issue_comment.created-pr.json", Permissions: lk, Pulls: lk,
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ev, err := d.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cp := ev.State.ChangeProposal
	if ev.Actor.Role != "maintain" || !cp.IsFork || cp.HeadRepo != "bob-outside/platform" || cp.HeadSHA != strings.Repeat("c", 40) {
		t.Errorf("actor %+v, change proposal %+v", ev.Actor, cp)
	}
	role, err := lk.Permission(context.Background(), "acme", "platform", "alice")
	if err != nil || role != "triage" {
		t.Errorf("alice = %q, %v", role, err)
	}
	if _, err := lk.Permission(context.Background(), "acme", "platform", "nobody"); err == nil {
		t.Error("unknown user: want an error")
	}
	if s.Calls(githubsim.EndpointPull) != 1 || s.Calls(githubsim.EndpointPermission) != 3 {
		t.Errorf("calls: pull %d, permission %d", s.Calls(githubsim.EndpointPull), s.Calls(githubsim.EndpointPermission))
	}
}

func TestEnvSource(t *testing.T) {
	env := map[string]string{"GITHUB_EVENT_PATH": "/e.json", "GITHUB_EVENT_NAME": "issues"}
	p, n := EnvSource(func(k string) string { return env[k] })
	if p != "/e.json" || n != "issues" {
		t.Errorf("EnvSource = %q %q", p, n)
	}
}

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		if strings.HasSuffix(p, ".golden.json") {
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(eventNameOf(p), raw)
	}
	f.Add("issues", []byte(`{"action":"opened","issue":null}`))
	f.Add("pull_request", []byte(`{"action":"closed","pull_request":{"number":1,"html_url":"x"}}`))
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		d, err := New(Options{EventName: name, Payload: payload, Permissions: newFake(), Pulls: newFake()})
		if err != nil {
			return
		}
		ev, err := d.Read(context.Background())
		if err != nil {
			return
		}
		if verr := ev.Validate(); verr != nil {
			t.Fatalf("Read returned an invalid event: %v", verr)
		}
		if ev.Source.System != event.SystemGitHub || ev.Source.RawType != name {
			t.Fatalf("source = %+v", ev.Source)
		}
	})
}

func TestNewFromEnv(t *testing.T) {
	s := githubsim.New(githubsim.Options{Token: "tok", Repos: []githubsim.Repo{{FullName: "acme/platform"}}})
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.SetPermission("acme/platform", "alice", "admin")
	tests := []struct {
		name     string
		env      map[string]string
		opts     Options
		wantRole event.Role
		wantErr  string
	}{
		{"all from env", map[string]string{"GITHUB_EVENT_PATH": "testdata/issues.opened.json", "GITHUB_EVENT_NAME": "issues",
			"GITHUB_TOKEN": "tok", "GITHUB_API_URL": u, "GITHUB_REPOSITORY": "acme/platform"}, Options{}, "admin", ""},
		{"no token is an error naming the variables", map[string]string{"GITHUB_EVENT_PATH": "testdata/issues.opened.json", "GITHUB_EVENT_NAME": "issues"},
			Options{}, "", "no GitHub token: set GITHUB_TOKEN or GH_TOKEN"},
		{"flags win over env", map[string]string{"GITHUB_EVENT_PATH": "testdata/nope.json", "GITHUB_EVENT_NAME": "push",
			"GH_TOKEN": "tok", "GITHUB_API_URL": u},
			Options{Path: "-", EventName: "issues", Stdin: bytes.NewReader(mustJSON(load(t, "issues.opened")))}, "admin", ""},
		{"stdin missing", map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_API_URL": u}, Options{Path: "-", EventName: "issues"}, "", "no standard input"},
		{"bad api url", map[string]string{"GITHUB_EVENT_PATH": "x", "GITHUB_EVENT_NAME": "issues", "GITHUB_TOKEN": "t",
			"GITHUB_API_URL": "http://example.com/"}, Options{}, "", "loopback"},
		{"nothing set", nil, Options{}, "", "GITHUB_EVENT_NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewFromEnv(tt.opts, func(k string) string { return tt.env[k] })
			var ev *event.Event
			if err == nil {
				ev, err = d.Read(context.Background())
				if lk, ok := d.o.Permissions.(*Lookup); ok {
					defer lk.Client.Client().CloseIdleConnections()
				}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Actor.Role != tt.wantRole || ev.Repo != "acme/platform" {
				t.Errorf("role %q repo %q, want %q", ev.Actor.Role, ev.Repo, tt.wantRole)
			}
		})
	}
}
