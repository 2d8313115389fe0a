package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

var exampleDir = filepath.Join("..", "..", "examples", ".fullsend")

func readEvent(t *testing.T, name string) *event.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var ev event.Event
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &ev
}

func TestLoadExample(t *testing.T) {
	cfg, reg, err := LoadDir(exampleDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Repo != "acme/platform" {
		t.Errorf("repo %q", cfg.Repo)
	}
	var names []string
	for _, h := range reg.All() {
		names = append(names, h.Name)
	}
	if got := strings.Join(names, ","); got != "triage,label" || reg.Len() != 2 {
		t.Fatalf("registry = %s (len %d), want triage,label: code is disabled", got, reg.Len())
	}
	if _, ok := reg.Get("code"); ok {
		t.Error("disabled agent must not be in the registry")
	}
	tr, ok := reg.Get("triage")
	if !ok || tr.Role != "triage" || tr.Workflow != "fullsend-run.yml" || tr.Timeout != 30*time.Minute ||
		strings.Join(tr.Command, " ") != "./agents/triage.sh" || strings.Join(tr.Env, ",") != "TRIAGE_MODEL" || !tr.Enabled {
		t.Errorf("triage = %+v", tr)
	}
	lb, _ := reg.Get("label")
	if lb.Name != "label" || lb.Timeout != 20*time.Minute || lb.Workflow != "" {
		t.Errorf("label = %+v (name must default to the agents entry)", lb)
	}

	all, err := LoadAll(cfg)
	if err != nil || len(all) != 3 || all[2].Name != "code" || all[2].Enabled {
		t.Fatalf("LoadAll = %v, %v", all, err)
	}
}

// TestExampleEventsMatch evaluates the example harnesses against the
// example events.
func TestExampleEventsMatch(t *testing.T) {
	cfg, err := config.Load(exampleDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := LoadAll(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file string
		want string // names of matching harnesses
	}{
		{"triage-comment.json", "triage"},
		{"label-added.json", "label"},
		{"outsider-comment.json", "triage"}, // triggers match; authorization rejects the outsider
	}
	for _, tc := range cases {
		in := trigger.NewInput(readEvent(t, tc.file))
		var got []string
		for _, h := range all {
			ok, err := h.Matches(in)
			if err != nil {
				t.Fatalf("%s on %s: %v", h.Name, tc.file, err)
			}
			if ok {
				got = append(got, h.Name)
			}
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s matched %v, want %s", tc.file, got, tc.want)
		}
	}
}

func TestManualOnlyNeverMatches(t *testing.T) {
	h := &Harness{Name: "manual"}
	if ok, err := h.Matches(trigger.NewInput(readEvent(t, "triage-comment.json"))); ok || err != nil {
		t.Errorf("Matches = %v, %v; want false, nil", ok, err)
	}
}

func TestLoadDirReportsEverything(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nforge: svn\nagents:\n  - {name: a, source: a.yaml}\n  - {name: b, source: b.yaml}\n  - {name: c, source: c.yaml, enabled: false}\n  - {name: d, source: missing.yaml}\n",
		"a.yaml":      "role: r\ntrigger: >-\n  event.transition.kind == \"comment_added\" &&\n  event.transition.coment.command == \"/x\"\n",
		"b.yaml":      "role: r\ntrigger: 'event.entity.id'\nrun: {timeout: soon}\n",
		"c.yaml":      "role: r\ntrigger: 'nope'\n",
	})
	_, _, err := LoadDir(dir, nil)
	es, ok := err.(strictyaml.Errors)
	if !ok {
		t.Fatalf("err = %T %v", err, err)
	}
	got := make([]string, len(es))
	for i, p := range es {
		got[i] = strings.TrimPrefix(p.String(), dir+string(filepath.Separator))
	}
	want := []string{
		"config.yaml:2:8: forge: \"svn\" is not one of github, gitlab",
		"config.yaml:7:23: agents[3].source: harness file " + filepath.Join(dir, "missing.yaml") + " does not exist",
		"a.yaml:4:20: trigger: event.transition has no field 'coment'; did you mean 'comment'?\n" +
			"  | event.transition.kind == \"comment_added\" && event.transition.coment.command == \"/x\"\n" +
			"  |                                                              ^",
		"b.yaml:2:11: trigger: a trigger must be a condition (true or false), but this expression has type int; compare it with something, for example with ==",
		"b.yaml:3:16: run.timeout: \"soon\" is not a Go duration (examples: 900s, 5m, 1h30m)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadHandBuiltConfig(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"a.yaml": "role: r\ntrigger: '\"bug\" in event.state.labels'\n"})
	cfg := &config.Config{Dir: dir, File: filepath.Join(dir, "config.yaml"), Agents: []config.Agent{
		{Name: "a", Source: "a.yaml", Line: 3, Col: 5}, {Name: "b", Source: "../b.yaml", Line: 5, Col: 5}}}
	_, err := Load(cfg)
	if err == nil || !strings.Contains(err.Error(), `config.yaml:5:5: agent "b": source: "../b.yaml": a ".." component is not allowed`) {
		t.Fatalf("err = %v", err)
	}
	cfg.Agents = cfg.Agents[:1]
	reg, err := Load(cfg)
	if err != nil || reg.Len() != 1 {
		t.Fatalf("Load = %v, %v", reg, err)
	}
	h, _ := reg.Get("a")
	if ok, err := h.Matches(trigger.NewInput(readEvent(t, "triage-comment.json"))); !ok || err != nil {
		t.Errorf("Matches = %v, %v", ok, err)
	}
}

func TestNewRegistryOrderAndDuplicates(t *testing.T) {
	a1, b, a2 := &Harness{Name: "a", Role: "1"}, &Harness{Name: "b"}, &Harness{Name: "a", Role: "2"}
	r := NewRegistry(b, a1, a2)
	all := r.All()
	if r.Len() != 2 || all[0] != b || all[1] != a1 {
		t.Fatalf("All() = %v", all)
	}
	all[0] = nil // the returned slice is a copy
	if r.All()[0] != b {
		t.Error("All() exposed internal storage")
	}
	if h, ok := r.Get("a"); !ok || h.Role != "1" {
		t.Errorf("Get(a) = %v, %v; want the first", h, ok)
	}
}
