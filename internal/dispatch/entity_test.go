package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// entityConfig has an entity-source harness "review" (a /fs-review
// element of a writer on a GitHub entity) beside an event-only "triage"
// (any comment).
func entityConfig(t *testing.T) string {
	t.Helper()
	return testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nforge: github\nagents:\n" +
			"  - name: review\n    source: harness/review.yaml\n  - name: triage\n    source: harness/triage.yaml\n" +
			"authorization:\n  min_role: write\n",
		"harness/review.yaml": "role: review\nentity: {sources: [github]}\n" +
			"trigger: 'entity.activity.exists(a, a.kind == \"comment\" && a.command == \"/fs-review\")'\nrun:\n  command: [\"true\"]\n",
		"harness/triage.yaml": "role: triage\ntrigger: 'event.transition.kind == \"comment_added\"'\nrun:\n  command: [\"true\"]\n",
	})
}

// fakeResolver answers every Ref with en (or err), recording the refs.
type fakeResolver struct {
	mu   sync.Mutex
	en   *entity.Entity
	err  error
	refs []entity.Ref
}

func (f *fakeResolver) Resolve(_ context.Context, ref entity.Ref) (*entity.Entity, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refs = append(f.refs, ref)
	return f.en, f.err
}

// prEntity is the golden GitHub pull request whose newest element is the
// /fs-review comment, by an actor whose current role is role.
func prEntity(t *testing.T, role event.Role) *entity.Entity {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "github-change-proposal.json"))
	if err != nil {
		t.Fatal(err)
	}
	en, err := entity.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	en.Activity[0].Actor.Role = role
	return en
}

// dispatchPR dispatches the golden PR comment event to the json output
// with newResolver and returns the planned agents and the log.
func dispatchPR(t *testing.T, cfgDir string, newResolver func(string, *config.Config, func(string) string) (entity.Resolver, error)) ([]string, string) {
	t.Helper()
	ev, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "github-pr-comment.event.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, logs bytes.Buffer
	o := Options{ConfigDir: cfgDir, OutputDriver: "json", Stdin: bytes.NewReader(ev), NewResolver: newResolver,
		Output: output.Env{Getenv: func(string) string { return "" }, Stdout: &stdout, Log: slog.New(slog.NewTextHandler(&logs, nil))}}
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("dispatch: %v\n%s", err, logs.String())
	}
	var agents []string
	for _, part := range strings.Split(stdout.String(), `"agent":"`)[1:] {
		agents = append(agents, part[:strings.IndexByte(part, '"')])
	}
	return agents, logs.String()
}

func fixed(r entity.Resolver) func(string, *config.Config, func(string) string) (entity.Resolver, error) {
	return func(string, *config.Config, func(string) string) (entity.Resolver, error) { return r, nil }
}

func TestDispatchResolvesTheEntity(t *testing.T) {
	cfgDir := entityConfig(t)
	tests := []struct {
		name   string
		res    *fakeResolver
		agents string
		log    string
	}{
		{"a developer's /fs-review reaches CEL", &fakeResolver{en: prEntity(t, event.RoleMaintain)}, "review,triage", "entity resolved"},
		{"an outsider's /fs-review never does", &fakeResolver{en: prEntity(t, event.RoleNone)}, "triage", "entity resolved"},
		{"failed enumeration denies the entity harness only", &fakeResolver{err: errors.New("GET /repos/acme/platform/issues/12/comments: HTTP 502")}, "triage", "HTTP 502"},
		{"an invalid entity denies", &fakeResolver{en: &entity.Entity{}}, "triage", "not a valid NormalizedEntity"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			agents, logs := dispatchPR(t, cfgDir, fixed(tc.res))
			if strings.Join(agents, ",") != tc.agents || !strings.Contains(logs, tc.log) {
				t.Fatalf("agents %v (want %s), log:\n%s", agents, tc.agents, logs)
			}
			// A PR comment resolves, once, to the pull request's entity.
			want := entity.Ref{System: "github", Repo: "acme/platform", Kind: entity.KindChangeProposal, ID: 12}
			if len(tc.res.refs) != 1 || tc.res.refs[0] != want {
				t.Fatalf("resolved %v; want once %v", tc.res.refs, want)
			}
			if tc.agents == "triage" && tc.log != "entity resolved" && !strings.Contains(logs, "entity evaluation denied") {
				t.Errorf("the denial is not logged:\n%s", logs)
			}
		})
	}
}

// Roles are resolved per event: a user demoted between two events is
// filtered out of the second.
func TestDispatchDemotedUser(t *testing.T) {
	cfgDir := entityConfig(t)
	first, _ := dispatchPR(t, cfgDir, fixed(&fakeResolver{en: prEntity(t, event.RoleWrite)}))
	second, _ := dispatchPR(t, cfgDir, fixed(&fakeResolver{en: prEntity(t, event.RoleRead)}))
	if strings.Join(first, ",") != "review,triage" || strings.Join(second, ",") != "triage" {
		t.Fatalf("first %v, second %v", first, second)
	}
}

// Without a resolver for the system (one that cannot be built: here the
// real GitHub resolver without a token) evaluation of the entity is
// denied, with the reason; the command does not fail.
func TestDispatchWithoutResolver(t *testing.T) {
	cfgDir := entityConfig(t)
	agents, logs := dispatchPR(t, cfgDir, nil) // resolvers.New
	if strings.Join(agents, ",") != "triage" || !strings.Contains(logs, "github entity resolver: github entity: no GitHub token") {
		t.Fatalf("agents %v, log:\n%s", agents, logs)
	}
	broken := func(string, *config.Config, func(string) string) (entity.Resolver, error) {
		return nil, errors.New("GITHUB_TOKEN is not set")
	}
	if agents, logs := dispatchPR(t, cfgDir, broken); strings.Join(agents, ",") != "triage" || !strings.Contains(logs, "GITHUB_TOKEN is not set") {
		t.Fatalf("agents %v, log:\n%s", agents, logs)
	}
}

// Without an entity-source harness for the event's system nothing is
// resolved.
func TestDispatchResolvesOnlyWhenNeeded(t *testing.T) {
	res := &fakeResolver{en: prEntity(t, event.RoleWrite)}
	agents, _ := dispatchPR(t, filepath.Join("..", "..", "examples", ".fullsend"), fixed(res))
	if len(res.refs) != 0 || len(agents) != 0 {
		t.Fatalf("resolved %v, agents %v", res.refs, agents)
	}
}

// The entity-source run carries the entity its trigger saw, filtered
// (the element below min_role removed), as normalized_entity; the
// event-only run beside it has none.
func TestDispatchPlanCarriesTheFilteredEntity(t *testing.T) {
	en := prEntity(t, event.RoleMaintain)
	en.Activity[1].Actor.Role = event.RoleRead // the review, by a reader now
	ev, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "github-pr-comment.event.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	o := Options{ConfigDir: entityConfig(t), OutputDriver: "json", Stdin: bytes.NewReader(ev), NewResolver: fixed(&fakeResolver{en: en}),
		Output: output.Env{Getenv: func(string) string { return "" }, Stdout: &stdout}}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var entries []map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &entries); err != nil || len(entries) != 2 {
		t.Fatalf("plan %s (%v)", stdout.Bytes(), err)
	}
	if _, ok := entries[1]["normalized_entity"]; ok || entries[1]["agent"] != "triage" {
		t.Fatalf("the event-only entry: %v", entries[1])
	}
	got, err := entity.Decode([]byte(entries[0]["normalized_entity"]))
	if err != nil || entries[0]["agent"] != "review" {
		t.Fatalf("the entity-source entry: %v (%v)", entries[0], err)
	}
	if len(got.Activity) != 2 || got.Activity[0].ID != "2002" || got.Activity[1].Kind != entity.ElementBody {
		t.Fatalf("activity %+v; want the reader's review filtered out", got.Activity)
	}
}

// The example "command that stays actionable" harness through dispatch:
// an outsider's /fs-triage on the issue never reaches its trigger, a
// developer's does (the event itself is by a writer either way).
func TestDispatchTriageCommandExample(t *testing.T) {
	ev := []byte(`{"repo":"acme/platform","entity":{"kind":"work_item","id":12,"url":"https://github.com/acme/platform/issues/12"},` +
		`"transition":{"kind":"edited"},"actor":{"id":"dev","kind":"human","role":"write","is_entity_author":false},` +
		`"state":{"labels":[]},"source":{"system":"github","raw_type":"issues","raw_action":"edited"}}`)
	for _, tc := range []struct {
		role event.Role
		want string
	}{{event.RoleNone, ""}, {event.RoleWrite, "triage-command"}} {
		en := prEntity(t, tc.role)
		en.Kind, en.URL, en.State.ChangeProposal = entity.KindWorkItem, "https://github.com/acme/platform/issues/12", nil
		en.Activity[0].Body, en.Activity[0].Command, en.Activity[0].Instruction = "/fs-triage please", "/fs-triage", "please"
		en.Activity = slices.DeleteFunc(en.Activity, func(el entity.Element) bool { return el.Kind == entity.ElementReview })
		en.Version = entity.ComputeVersion(en, nil)
		var stdout bytes.Buffer
		o := Options{ConfigDir: filepath.Join("..", "..", "examples", "entities", ".fullsend"), OutputDriver: "json",
			Stdin: bytes.NewReader(ev), NewResolver: fixed(&fakeResolver{en: en}),
			Output: output.Env{Getenv: func(string) string { return "" }, Stdout: &stdout}}
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		var entries []map[string]string
		if err := json.Unmarshal(stdout.Bytes(), &entries); err != nil {
			t.Fatal(err)
		}
		var got string
		for _, e := range entries {
			got += e["agent"]
			if e["role"] != "triage-github" { // the harness's overlay for GitHub entities
				t.Errorf("role %q, want the overlay's triage-github", e["role"])
			}
		}
		if got != tc.want {
			t.Errorf("comment by a %s: ran %q, want %q", tc.role, got, tc.want)
		}
	}
}
