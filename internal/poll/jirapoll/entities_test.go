package jirapoll_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const issueRead = "GET /rest/api/3/issue/{issueIdOrKey}"

// detectAndResolve runs discovery, detection and the entity stage of one
// cycle, and returns the items and the emulator's calls of the entity
// stage alone.
func detectAndResolve(t *testing.T, e *env, p *poller) ([]*poll.Item, map[string]int) {
	t.Helper()
	ctx := t.Context()
	disc, err := p.drv.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.drv.Detect(ctx, disc.Eligible); err != nil {
		t.Fatal(err)
	}
	e.sim.ResetCalls()
	before := p.drv.Usage().Calls
	if err := poll.ResolveEntities(ctx, p.drv, disc.Eligible); err != nil {
		t.Fatal(err)
	}
	calls := e.sim.Calls()
	if got := p.drv.Usage().Calls - before; got != sumCalls(calls) {
		t.Errorf("Usage counted %d calls of the entity stage, the emulator %d", got, sumCalls(calls))
	}
	return disc.Eligible, calls
}

// TestResolveEntitiesReusesDetect: in the first cycle that resolves
// entities each item costs one issue read; from the next one discovery
// reads the entity's fields, Detect keeps the newest comments and the
// whole changelog, and no item costs an issue read, whether detected from
// its creation or from a checkpoint, only the roles, once. Each entity is
// the one an issue read gives.
func TestResolveEntitiesReusesDetect(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	fresh1 := e.issues(2, fresh, "/fs-triage look")
	e.sim.AddLabel(fresh1[0], "needs-agent", alice)
	e.sim.SetDescription(fresh1[1], "/fs-code the description", alice)
	seededKey := e.issues(1, seeded, "")[0]
	for i := range 60 { // more than one page: the entity has the newest 50
		e.sim.AddComment(seededKey, alice, "/fs-triage again "+strconv.Itoa(i))
	}
	p := e.poller(pollerOpts{n: 10})

	items, calls := detectAndResolve(t, e, p) // the first: discovery did not read the entity's fields
	if len(items) != 3 || calls[issueRead] != 3 {
		t.Fatalf("first cycle: %d items, %d issue reads, want 3 and 3 (%v)", len(items), calls[issueRead], calls)
	}
	items, calls = detectAndResolve(t, e, p)
	if calls[issueRead] != 0 || calls["GET /rest/api/3/issue/{issueIdOrKey}/comment"] != 0 || calls["GET /rest/api/3/issue/{issueIdOrKey}/changelog"] != 0 {
		t.Errorf("second cycle: calls %v, want no issue, comment or changelog read", calls)
	}
	if calls["GET /rest/api/3/project/{projectIdOrKey}/role"] != 1 {
		t.Errorf("second cycle: %d role listings, want 1 for the batch", calls["GET /rest/api/3/project/{projectIdOrKey}/role"])
	}
	r := jiraentity.New(e.client(), jiraentity.Options{SiteURL: e.base, Repo: repo})
	for _, it := range items {
		if it.Entity == nil || it.Entity.Err != nil {
			t.Fatalf("%s: resolution %+v", it.ID, it.Entity)
		}
		got := it.Entity.Entity
		id, _ := strconv.ParseInt(e.sim.IssueID(it.ID), 10, 64)
		want, err := r.Resolve(t.Context(), entity.Ref{System: entity.SystemJira, Repo: repo, Kind: entity.KindWorkItem, ID: id})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%s: the entity from detection differs from an issue read:\n%s\n%s", it.ID, a, b)
		}
		kinds := map[string]bool{}
		for _, el := range got.Activity {
			kinds[el.Kind] = true
			if el.Actor.ID != alice || el.Actor.Role != event.RoleWrite {
				t.Errorf("%s: %s element by %+v, want alice with role write", it.ID, el.Kind, el.Actor)
			}
		}
		if !kinds[entity.ElementComment] || (it.ID == fresh1[0] && !kinds[entity.ElementLabel]) || (it.ID == fresh1[1] && !kinds[entity.ElementBody]) {
			t.Errorf("%s: activity kinds %v", it.ID, kinds)
		}
		if cut := it.ID == seededKey; got.ActivityTruncated != cut || (cut && len(got.Activity) != entity.MaxActivity) {
			t.Errorf("%s: %d elements, truncated %v", it.ID, len(got.Activity), got.ActivityTruncated)
		}
	}
}

// TestResolveEntitiesFromTheFirstCycle: a driver told that the cycles
// resolve entities (Options.Entities) reads no issue in the first cycle
// either.
func TestResolveEntitiesFromTheFirstCycle(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.issues(2, fresh, "/fs-triage look")
	p := e.poller(pollerOpts{n: 10, entities: true})
	items, calls := detectAndResolve(t, e, p)
	if len(items) != 2 || calls[issueRead] != 0 {
		t.Errorf("%d items, calls %v, want 2 and no issue read", len(items), calls)
	}
	for _, it := range items {
		if it.Entity == nil || it.Entity.Err != nil || len(it.Entity.Entity.Activity) != 1 {
			t.Errorf("%s: resolution %+v", it.ID, it.Entity)
		}
	}
}

// TestResolveEntitiesFailureDenies: a role lookup that fails leaves each
// item with the error (its evaluation is denied); the cycle goes on.
func TestResolveEntitiesFailureDenies(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.issues(2, fresh, "/fs-triage look")
	p := e.poller(pollerOpts{n: 10})
	e.sim.InjectFault(jirasim.Fault{Endpoint: "GET /rest/api/3/project/{projectIdOrKey}/role", Status: 500, Times: -1})
	items, _ := detectAndResolve(t, e, p)
	if len(items) != 2 {
		t.Fatalf("%d items", len(items))
	}
	for _, it := range items {
		if it.Entity == nil || it.Entity.Err == nil || it.Entity.Entity != nil {
			t.Errorf("%s: resolution %+v, want the role lookup's error", it.ID, it.Entity)
		}
	}
	if p.drv.EntitySystem() != entity.SystemJira {
		t.Errorf("EntitySystem %q", p.drv.EntitySystem())
	}
}
