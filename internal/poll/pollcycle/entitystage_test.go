package pollcycle_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// entityDriver is fakeDriver with an entity stage: resolve gives each
// item's resolution, and every call is recorded.
type entityDriver struct {
	*fakeDriver
	mu      sync.Mutex
	resolve func(it *poll.Item) entity.Resolution
	asked   [][]string // item ids of each Entities call
	fail    error      // the whole stage fails
}

func (d *entityDriver) EntitySystem() string { return entity.SystemJira }

func (d *entityDriver) Capabilities() poll.Capabilities { return poll.Capabilities{Entities: d} }

func (d *entityDriver) Entities(_ context.Context, items []*poll.Item) (poll.ItemResolver, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var ids []string
	r := &resolutions{at: map[*poll.Item]int64{}}
	for _, it := range items {
		ids = append(ids, it.ID)
		if d.resolve != nil {
			r.at[it] = int64(len(r.res))
			r.res = append(r.res, d.resolve(it))
		}
	}
	d.asked = append(d.asked, ids)
	return r, d.fail
}

// resolutions is an entityDriver's resolver of one cycle: each item's
// resolution, its Ref's ID the index.
type resolutions struct {
	at  map[*poll.Item]int64
	res []entity.Resolution
}

func (r *resolutions) Ref(it *poll.Item) (entity.Ref, error) {
	i, ok := r.at[it]
	if !ok {
		return entity.Ref{}, errors.New("no resolution")
	}
	return entity.Ref{System: entity.SystemJira, ID: i}, nil
}

func (r *resolutions) Resolve(_ context.Context, ref entity.Ref) (*entity.Entity, error) {
	return r.res[ref.ID].Entity, r.res[ref.ID].Err
}

func (r *resolutions) Resolved(context.Context, *poll.Item) error { return nil }

// jiraEntity is item id's entity whose newest element is a comment text
// by actor with role (the item's last change).
func jiraEntity(id, actor string, role event.Role, text string) *entity.Entity {
	at := t0.Add(time.Second)
	en := &entity.Entity{
		Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 1, Key: id,
		URL: "https://jira.example/browse/" + id, Repo: "acme/platform",
		State: entity.State{Title: "It breaks", Status: "Open", StatusCategory: entity.StatusTodo, Author: "reporter",
			Labels: []string{}, Assignees: []string{}, Created: t0, Updated: at},
		Activity: []entity.Element{
			entity.TextElement(entity.ElementComment, "c1", at, event.Actor{ID: actor, Kind: event.ActorHuman, Role: role}, text),
		},
	}
	en.Version = entity.ComputeVersion(en, nil)
	return en
}

// realCore is the engine with an event-only harness "ev" (any /run
// comment) and, when entities, an entity-source harness "triage" (a
// /fs-triage element of a writer), through poll.CoreDecider.
func realCore(t *testing.T, entities bool, log *slog.Logger) poll.Decider {
	t.Helper()
	evTr, err := trigger.Compile(`event.transition.kind == "comment_added" && event.transition.comment.command == "/run"`)
	if err != nil {
		t.Fatal(err)
	}
	hs := []*harness.Harness{{Name: "ev", Role: "ev", Trigger: evTr, Enabled: true}}
	if entities {
		tr, err := trigger.CompileEntity(`entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage")`, trigger.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, &harness.Harness{Name: "triage", Role: "triage", Trigger: tr, Enabled: true,
			Entity: &harness.EntitySources{Sources: []string{entity.SystemJira}, MinRole: event.RoleWrite}})
	}
	e, err := core.New(core.Options{Config: &config.Config{}, Harnesses: harness.NewRegistry(hs...), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return poll.CoreDecider(e)
}

func TestEntityStage(t *testing.T) {
	tests := []struct {
		name     string
		text     string     // the comment of the item's one change
		role     event.Role // the current role of the entity's comment's actor
		entities bool
		failed   bool
		runs     []string // harnesses dispatched
		resolved int
		denied   int
	}{
		{"a developer's /fs-triage reaches CEL", "/fs-triage now", event.RoleWrite, true, false, []string{"triage"}, 1, 0},
		{"an outsider's /fs-triage never does", "/fs-triage now", event.RoleNone, true, false, nil, 1, 0},
		{"failed enumeration denies the entity harness only", "/run it", event.RoleWrite, true, true, []string{"ev"}, 0, 1},
		{"failed enumeration of a command", "/fs-triage now", event.RoleWrite, true, true, nil, 0, 1},
		{"no entity-source harness: no resolution", "/run it", event.RoleWrite, false, false, []string{"ev"}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			// The change's actor is a writer: the event's gate lets it
			// through, and only the filter of the entity's activity (the
			// /fs-triage element's actor has tc.role) decides.
			it := item("P-1", tc.text)
			d := &entityDriver{fakeDriver: &fakeDriver{Items: []*poll.Item{it, item("P-2")}}, resolve: func(it *poll.Item) entity.Resolution {
				if tc.failed {
					return entity.Resolution{Err: errors.New("GET /issue/P-1/comment: HTTP 503")}
				}
				return entity.Resolution{Entity: jiraEntity(it.ID, "someone", tc.role, tc.text)}
			}}
			out := &fakeOut{}
			o := opts(d, realCore(t, tc.entities, log), out)
			o.Log = log
			res, err := pollcycle.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out.Runs {
				got = append(got, r.Harness)
				if (r.Harness == "triage") != (r.Entity != nil) {
					t.Errorf("run %s carries entity %v", r.Harness, r.Entity)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.runs, ",") {
				t.Fatalf("runs %v; want %v", got, tc.runs)
			}
			st := res.Stats
			if st.EntitiesResolved != tc.resolved || st.EntityDenials[poll.DenialKey{Harness: "triage", Reason: core.DenialUnresolved}] != tc.denied {
				t.Fatalf("stats resolved %d unresolved %d denials %v", st.EntitiesResolved, st.EntitiesUnresolved, st.EntityDenials)
			}
			if !tc.entities {
				if len(d.asked) != 0 || st.EntitySystem != "" {
					t.Fatalf("entities resolved without an entity-source harness: %v", d.asked)
				}
				return
			}
			// Once per cycle, only the item with changes.
			if len(d.asked) != 1 || strings.Join(d.asked[0], ",") != "P-1" {
				t.Fatalf("ResolveEntities calls %v", d.asked)
			}
			if tc.failed {
				if st.EntitiesUnresolved != 1 || !strings.Contains(logs.String(), "HTTP 503") {
					t.Errorf("failed resolution not counted or logged (unresolved %d):\n%s", st.EntitiesUnresolved, logs.String())
				}
				// Handled as no run for that harness: the checkpoint moves.
				if w := strings.Join(d.Writes(), "\n"); !strings.Contains(w, "advance P-1 10:00:01") {
					t.Errorf("checkpoint did not move:\n%s", w)
				}
			}
		})
	}
}

// Roles are resolved per event: a user demoted between two events is
// filtered out of the second.
func TestEntityStageDemotedUser(t *testing.T) {
	role := event.RoleWrite
	d := &entityDriver{fakeDriver: &fakeDriver{}, resolve: func(it *poll.Item) entity.Resolution {
		return entity.Resolution{Entity: jiraEntity(it.ID, "dev", role, "/fs-triage")}
	}}
	core := realCore(t, true, nil)
	var runs []int
	for _, r := range []event.Role{event.RoleWrite, event.RoleRead} {
		role = r
		d.Items = []*poll.Item{item("P-1", "/fs-triage")}
		out := &fakeOut{}
		if _, err := pollcycle.Run(context.Background(), opts(d, core, out)); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, len(out.Runs))
	}
	if runs[0] != 1 || runs[1] != 0 || len(d.asked) != 2 {
		t.Fatalf("runs per event %v (resolutions %v); want [1 0]", runs, d.asked)
	}
}

// A stage that fails as a whole stops the cycle before anything is locked.
func TestEntityStageErrorStopsTheCycle(t *testing.T) {
	d := &entityDriver{fakeDriver: &fakeDriver{Items: []*poll.Item{item("P-1", "/run")}}, fail: poll.ErrAuth}
	_, err := pollcycle.Run(context.Background(), opts(d, realCore(t, true, nil), &fakeOut{}))
	if !errors.Is(err, poll.ErrAuth) || len(d.Writes()) != 0 {
		t.Fatalf("err %v, writes %v", err, d.Writes())
	}
}

// A driver that resolves no entities while a harness declares its system:
// the entity-source harness is denied (counted, logged), the event-only
// one runs.
func TestEntityStageWithoutResolver(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	d := &fakeDriver{Items: []*poll.Item{item("P-1", "/run /fs-triage")}}
	out := &fakeOut{}
	o := opts(d, realCore(t, true, log), out)
	o.Log = log
	res, err := pollcycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 1 || out.Runs[0].Harness != "ev" {
		t.Fatalf("runs %v", out.Runs)
	}
	if n := res.Stats.EntityDenials[poll.DenialKey{Harness: "triage", Reason: core.DenialUnresolved}]; n != 1 ||
		!strings.Contains(logs.String(), "entity_denials=1") || !strings.Contains(logs.String(), "no entity was resolved") {
		t.Fatalf("denials %v, log:\n%s", res.Stats.EntityDenials, logs.String())
	}
}
