package harness

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

func entityConfig(t *testing.T, harnesses map[string]string) string {
	t.Helper()
	files := map[string]string{}
	cfg := "version: 1\nrepo: acme/platform\nauthorization: {min_role: triage}\nagents:\n"
	for name, body := range harnesses {
		cfg += "  - name: " + name + "\n    source: harness/" + name + ".yaml\n"
		files["harness/"+name+".yaml"] = body
	}
	files["config.yaml"] = cfg
	return testfs.WriteTree(t, files)
}

func TestEntityHarnessLoads(t *testing.T) {
	dir := entityConfig(t, map[string]string{
		"needs":  "role: r\nentity: {sources: [jira, github]}\ntrigger: '\"needs-agent\" in entity.state.labels'\n",
		"strict": "role: r\nentity: {sources: [gitlab], min_role: maintain, every: 1h, retry: {max: 1, backoff: 2s}}\ntrigger: 'entity.kind == \"work_item\"'\n",
		"plain":  "role: r\ntrigger: 'event.repo == \"acme/platform\"'\n",
	})
	_, reg, err := LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	needs, _ := reg.Get("needs")
	strict, _ := reg.Get("strict")
	plain, _ := reg.Get("plain")
	if !reflect.DeepEqual(needs.Entity, &EntitySources{Sources: []string{"jira", "github"}, MinRole: event.RoleTriage,
		RetryMax: 3, RetryBackoff: time.Minute}) {
		t.Errorf("needs: %+v (min_role defaults to authorization.min_role)", needs.Entity)
	}
	if e := strict.Entity; e.MinRole != event.RoleMaintain || e.Every != time.Hour || e.RetryMax != 1 || e.RetryBackoff != 2*time.Second ||
		!e.HasSource("gitlab") || e.HasSource("jira") {
		t.Errorf("strict: %+v", strict.Entity)
	}
	if !strings.HasPrefix(needs.Revision, "sha256:") || len(needs.Revision) != 71 || needs.Revision == strict.Revision {
		t.Errorf("revisions %q, %q: want the digest of each file", needs.Revision, strict.Revision)
	}
	if (*EntitySources)(nil).HasSource("jira") {
		t.Error("an event-only harness has no entity source")
	}
	if !needs.Trigger.IsEntity() || plain.Entity != nil || plain.Trigger.IsEntity() {
		t.Error("an entity harness's trigger must be compiled over entity and event, an event-only one over event")
	}
}

func TestEntityHarnessProblems(t *testing.T) {
	dir := entityConfig(t, map[string]string{
		"unguarded": "role: r\nentity: {sources: [jira]}\ntrigger: |\n  entity.kind == \"work_item\" &&\n    event.transition.kind == \"opened\"\n",
		"field":     "role: r\nentity: {sources: [jira]}\ntrigger: 'entity.state.lables.size() > 0'\n",
		"eventonly": "role: r\ntrigger: 'entity.kind == \"x\"'\n",
	})
	_, _, probs := Check(dir, nil)
	got := probs.Error()
	for _, want := range []string{
		filepath.Join(dir, "harness", "unguarded.yaml") + ":5:5: trigger: event is null when the entity is evaluated without an event",
		filepath.Join(dir, "harness", "field.yaml") + ":3:24: trigger:",
		"entity.state has no field 'lables'; did you mean 'labels'?",
		filepath.Join(dir, "harness", "eventonly.yaml") + ":2:11: trigger: unknown name 'entity'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

func TestEntityHarnessWarnings(t *testing.T) {
	dir := entityConfig(t, map[string]string{
		"eventbound": "role: r\nentity: {sources: [github]}\ntrigger: 'event != null && event.transition.kind == \"opened\"'\n",
		"state":      "role: r\nentity: {sources: [github]}\ntrigger: 'entity.state.status_category == \"todo\"'\n",
		"plain":      "role: r\ntrigger: 'false'\n",
	})
	_, hs, probs := Check(dir, nil)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	ws := Warnings(hs)
	if len(ws) != 1 || ws[0].File != filepath.Join(dir, "harness", "eventbound.yaml") || ws[0].Line != 3 || ws[0].Col != 11 ||
		!strings.HasPrefix(ws[0].Msg, "WARNING: trigger: never matches when event is null") {
		t.Fatalf("warnings %v", ws)
	}
}
