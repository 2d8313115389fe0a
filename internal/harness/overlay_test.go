package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Overlays load compiled, in file order, with their settings and the
// position of their `when`.
func TestOverlaysLoad(t *testing.T) {
	dir := entityConfig(t, map[string]string{
		"src": `role: r
entity: {sources: [jira, github]}
trigger: "true"
overlays:
  - when: entity.source.system == "jira"
    role: jira-r
    dispatch: {workflow: jira.yml}
  - when: >-
      event != null &&
      event.source.system == "github"
    run:
      timeout: 5m
      env: [GH_EXTRA]
`,
		"plain": "role: r\ntrigger: 'event.repo == \"acme/platform\"'\noverlays:\n  - {when: 'event.source.system == \"gitlab\"', role: gl}\n",
		"none":  "role: r\ntrigger: 'event.repo == \"acme/platform\"'\noverlays: []\n",
	})
	_, reg, err := LoadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := reg.Get("src")
	if len(src.Overlays) != 2 {
		t.Fatalf("overlays %+v", src.Overlays)
	}
	o0, o1 := src.Overlays[0], src.Overlays[1]
	if o0.Role != "jira-r" || o0.Workflow != "jira.yml" || o0.Timeout != 0 || o0.Env != nil || o0.Line != 5 || o0.Col != 11 || !o0.When.IsEntity() {
		t.Errorf("overlay 0: %+v", o0)
	}
	if o1.Role != "" || o1.Timeout != 5*time.Minute || !reflect.DeepEqual(o1.Env, []string{"GH_EXTRA"}) || o1.Line != 9 || o1.Col != 7 {
		t.Errorf("overlay 1: %+v", o1)
	}
	plain, _ := reg.Get("plain")
	if len(plain.Overlays) != 1 || plain.Overlays[0].When.IsEntity() || plain.Overlays[0].Role != "gl" {
		t.Errorf("an event-only harness's overlay is compiled over event: %+v", plain.Overlays)
	}
	if none, _ := reg.Get("none"); none.Overlays != nil {
		t.Errorf("overlays: [] loads %+v", none.Overlays)
	}
}

// Every problem of an overlay is reported at file:line:col: the guard
// rule and CEL errors inside `when`, unknown keys, keys an overlay cannot
// set (with why), a missing `when`, an overlay that sets nothing, bad
// values.
func TestOverlayProblems(t *testing.T) {
	files := map[string]string{
		"unguarded": "role: r\nentity: {sources: [jira]}\noverlays:\n  - when: |\n      entity.kind == \"work_item\" &&\n        event.actor.id == \"x\"\n    role: a\n",
		"field":     "role: r\nentity: {sources: [jira]}\noverlays:\n  - when: 'entity.sourc.system == \"jira\"'\n    role: a\n",
		"eventonly": "role: r\noverlays:\n  - when: entity.kind == \"x\"\n    role: a\n",
		"notbool":   "role: r\noverlays:\n  - when: event.repo\n    role: a\n",
		"keys":      "role: r\noverlays:\n  - when: 'true'\n    rol: a\n    report: {jira: comment}\n    run: {command: [x], user: nobody, timeout: 1m}\n",
		"shape":     "role: r\noverlays:\n  - role: a\n  - when: 'true'\n  - when: ''\n    role: b\n  - x\n",
		"values":    "role: r\noverlays:\n  - when: 'true'\n    role: ''\n    dispatch: {workflow: ../x}\n    run: {timeout: 0s, env: [not-a-name]}\n",
		"list":      "role: r\noverlays: {when: 'true'}\n",
	}
	dir := entityConfig(t, files)
	_, _, probs := Check(dir, nil)
	got := probs.Error()
	at := func(name, pos, msg string) string {
		return filepath.Join(dir, "harness", name+".yaml") + ":" + pos + ": " + msg
	}
	for _, want := range []string{
		at("unguarded", "6:9", "overlays[0].when: event is null when the entity is evaluated without an event"),
		at("field", "4:19", "overlays[0].when: "),
		"'sourc'",
		at("eventonly", "3:11", "overlays[0].when: "),
		at("notbool", "3:11", "overlays[0].when: "),
		at("keys", "4:5", `overlays[0]: unknown key "rol"`),
		at("keys", "5:5", "overlays[0]: report cannot be set by an overlay: feedback is written"),
		at("keys", "6:11", "overlays[0].run: command cannot be set by an overlay"),
		at("keys", "6:25", "overlays[0].run: user cannot be set by an overlay"),
		at("shape", "3:5", "overlays[0].when: required"),
		at("shape", "4:5", "overlays[1]: sets nothing"),
		at("shape", "5:11", "overlays[2].when: must not be empty"),
		at("shape", "7:5", "overlays[3]: want a mapping"),
		at("values", "4:11", "overlays[0].role: must not be empty"),
		at("values", "5:26", "overlays[0].dispatch.workflow: "),
		at("values", "6:20", "overlays[0].run.timeout: must be greater than 0"),
		at("values", "6:30", "overlays[0].run.env[0]: "),
		at("list", "2:11", "overlays: want a list"),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "keys.yaml:6:40") {
		t.Errorf("run.timeout is an overlay setting:\n%s", got)
	}
}

// An overlay list longer than MaxOverlays is refused.
func TestOverlaysBounded(t *testing.T) {
	body := "role: r\noverlays:\n" + strings.Repeat("  - {when: 'true', role: a}\n", 33)
	dir := entityConfig(t, map[string]string{"many": body})
	_, _, probs := Check(dir, nil)
	if !strings.Contains(probs.Error(), "many.yaml:3:3: overlays: at most 32 overlays, got 33") {
		t.Errorf("problems: %v", probs)
	}
}

// A `when` is bounded by limits.trigger_cost like the trigger: one whose
// worst case exceeds it is refused at load, at its position.
func TestOverlayCostBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.yaml")
	src := "role: r\ntrigger: 'event.repo == \"a\"'\noverlays:\n  - when: event.state.labels.exists(l, l.contains(\"x\"))\n    role: a\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, probs := loadOne(config.Agent{Name: "a", Path: path, Line: 1, Col: 1}, trigger.Limits{Cost: 100}, config.DefaultMinRole)
	if len(probs) != 1 || probs[0].Line != 4 || probs[0].Col != 11 || !strings.HasPrefix(probs[0].Msg, "overlays[0].when: ") ||
		!strings.Contains(probs[0].Msg, "limits.trigger_cost") {
		t.Fatalf("problems %v", probs)
	}
	if _, probs := loadOne(config.Agent{Name: "a", Path: path, Line: 1, Col: 1}, trigger.Limits{}, config.DefaultMinRole); len(probs) != 0 {
		t.Fatalf("under the default limit: %v", probs)
	}
}
