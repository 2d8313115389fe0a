package gitlabpipeline

import (
	"strings"
	"testing"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestResourceKeyHasNoDot: GitLab's resource-group API answers 404 for a
// key with a dot in the URL path (the emulator does too), so the driver's
// keys never hold one, and distinct dotted keys stay distinct.
func TestResourceKeyHasNoDot(t *testing.T) {
	a := glapi.ResourceKey(scope.Key("triage.v2:acme/web.app:github:work_item:7"))
	b := glapi.ResourceKey(scope.Key("triage-v2:acme/web-app:github:work_item:7"))
	if strings.ContainsAny(a, ".") || a == b {
		t.Fatalf("keys %q and %q", a, b)
	}
	long := glapi.ResourceKey(scope.Key("h:" + strings.Repeat("a.", 200) + ":github:work_item:1"))
	if strings.Contains(long, ".") || len(glapi.GroupKey(long)) > 255 {
		t.Fatalf("long dotted key %q (%d bytes)", long, len(glapi.GroupKey(long)))
	}
}

// TestDottedScopeFindsItsResourceGroup dispatches a run whose scope key has
// dots and expects the driver to reach its resource group on the emulator.
func TestDottedScopeFindsItsResourceGroup(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := mkRun("triage.v2", 7, "event")
	if !strings.Contains(string(run.Key), ".") {
		t.Fatalf("key %q has no dot", run.Key)
	}
	dispatch1(t, d, run)
	g, ok := e.sim.Group(testProject, glapi.GroupKey(glapi.ResourceKey(run.Key)))
	if !ok || g.ProcessMode != gitlabsim.ModeNewestFirst {
		t.Fatalf("group %+v (found %v), want newest_first", g, ok)
	}
	if n := e.sim.Calls("edit_resource_group"); n != 1 {
		t.Fatalf("edit_resource_group calls = %d, want 1", n)
	}
}
