package gitlabevent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestTriggerPayloadFile: in a trigger pipeline TRIGGER_PAYLOAD holds the
// path of the file with the body; NewFromEnv reads it and confirms it
// through CI_API_V4_URL with GITLAB_TOKEN, for project CI_PROJECT_ID.
func TestTriggerPayloadFile(t *testing.T) {
	f := newFixture(t)
	_, hook, err := f.sim.AddNote("acme/platform", mr, 1, f.alice.ID, "/fs-review")
	must(t, err)
	path := filepath.Join(t.TempDir(), "TRIGGER_PAYLOAD")
	must(t, os.WriteFile(path, hook, 0o600))
	env := map[string]string{"TRIGGER_PAYLOAD": path, "CI_PROJECT_ID": "1", "GITLAB_TOKEN": f.sim.Token(),
		"CI_API_V4_URL": f.api.Client.BaseURL().String()}
	d, err := NewFromEnv(Options{API: f.api}, "", func(k string) string { return env[k] })
	must(t, err)
	ev, err := d.Read(t.Context())
	must(t, err)
	if ev.Transition.Comment.Command != "/fs-review" || ev.Repo != "acme/platform" {
		t.Fatalf("event %+v", ev)
	}
	if _, err := NewFromEnv(Options{}, "", func(k string) string { return map[string]string{"TRIGGER_PAYLOAD": path}[k] }); err == nil ||
		!strings.Contains(err.Error(), "CI_API_V4_URL") {
		t.Fatalf("no API URL: err = %v", err)
	}
	if _, err := NewFromEnv(Options{}, "", func(k string) string {
		return map[string]string{"TRIGGER_PAYLOAD": path, "CI_API_V4_URL": "https://gitlab.example.com"}[k]
	}); err == nil ||
		!strings.Contains(err.Error(), "GITLAB_TOKEN") {
		t.Fatalf("no token: err = %v", err)
	}
	env["CI_PROJECT_ID"] = "2"
	d, err = NewFromEnv(Options{API: f.api}, "", func(k string) string { return env[k] })
	must(t, err)
	if _, err := d.Read(t.Context()); !errors.Is(err, ErrNotConfirmed) {
		t.Fatalf("webhook of project 1 in project 2's pipeline: err = %v", err)
	}
}

// TestForgedProjectPath: without a configured project the payload's
// project path is still checked against the project id.
func TestForgedProjectPath(t *testing.T) {
	f := newFixture(t)
	body := edit(t, f.hooks["mr_open"], func(m map[string]any) { obj(m, "project")["path_with_namespace"] = "acme/secrets" })
	d, err := New(Options{Payload: body, API: f.api})
	must(t, err)
	if _, err := d.Read(t.Context()); !errors.Is(err, ErrNotConfirmed) || !strings.Contains(err.Error(), "project.path_with_namespace") {
		t.Fatalf("err = %v", err)
	}
}

// TestAPIFailures: a failed read of what must be confirmed is
// ErrUnavailable; a failed membership read leaves the role none.
func TestAPIFailures(t *testing.T) {
	f := newFixture(t)
	f.sim.InjectFault(gitlabsim.Fault{Endpoint: "get_merge_request", Status: 403})
	if _, err := f.read(t, f.hooks["mr_open"]); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotConfirmed) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	f.sim.InjectFault(gitlabsim.Fault{Endpoint: "get_member_all", Status: 403})
	evs, err := f.read(t, f.hooks["mr_open"])
	must(t, err)
	if evs[0].Actor.Role != event.RoleNone {
		t.Fatalf("role %q after a failed membership read, want none", evs[0].Actor.Role)
	}
	if n := f.sim.Calls("get_member_all"); n != 1 {
		t.Fatalf("membership read %d times, want 1 (403 is not retried)", n)
	}
}

func TestPayloadFileErrors(t *testing.T) {
	f := newFixture(t)
	big := filepath.Join(t.TempDir(), "big")
	must(t, os.WriteFile(big, make([]byte, MaxPayloadBytes+1), 0o600))
	for name, path := range map[string]string{"missing": filepath.Join(t.TempDir(), "nope"), "too large": big} {
		d, err := New(Options{Path: path, API: f.api})
		must(t, err)
		if _, err := d.Read(t.Context()); err == nil || !strings.Contains(err.Error(), "gitlab-event") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	d, err := New(Options{Path: "-", Stdin: strings.NewReader(string(f.hooks["issue_open"])), API: f.api})
	must(t, err)
	ev, err := d.Read(t.Context())
	must(t, err)
	if ev.Entity.ID != 1 || ev.Transition.Kind != event.Opened {
		t.Fatalf("stdin event %+v", ev)
	}
}
