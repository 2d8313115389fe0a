package ghactions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// ghaeventData holds the gha-event driver's sample payloads, named
// EVENT.ACTION[-variant].json.
const ghaeventData = "../../input/ghaevent/testdata"

// TestEventTriggersMatchGHAEvent feeds the driver one sample payload per
// generated trigger and type (it must map it), the same payload with an
// action the workflow does not list (it must refuse it), and checks that
// every sample of a listed event has a listed action.
func TestEventTriggersMatchGHAEvent(t *testing.T) {
	listed := map[string][]string{}
	for _, tr := range eventTriggers {
		listed[tr.Event] = tr.Types
		for _, typ := range tr.Types {
			data, err := os.ReadFile(filepath.Join(ghaeventData, tr.Event+"."+typ+".json"))
			if err != nil {
				t.Fatalf("no sample for %s %s: %v", tr.Event, typ, err)
			}
			if _, err := readEvent(tr.Event, data); err != nil {
				t.Errorf("%s %s: gha-event refuses a type the workflow triggers on: %v", tr.Event, typ, err)
			}
			if typ != tr.Types[0] {
				continue
			}
			var p map[string]any
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			p["action"] = "deleted"
			other, _ := json.Marshal(p)
			if _, err := readEvent(tr.Event, other); err == nil {
				t.Errorf("%s deleted: gha-event maps it, the workflow does not trigger on it", tr.Event)
			}
		}
	}
	samples, err := filepath.Glob(filepath.Join(ghaeventData, "*.json"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, s := range samples {
		base := filepath.Base(s)
		if strings.HasSuffix(base, ".golden.json") {
			continue
		}
		ev, rest, _ := strings.Cut(strings.TrimSuffix(base, ".json"), ".")
		action, _, _ := strings.Cut(rest, "-")
		if types, ok := listed[ev]; ok && !slices.Contains(types, action) {
			t.Errorf("gha-event maps %s %s (%s), the workflow does not trigger on it", ev, action, base)
		}
	}
}

func readEvent(name string, payload []byte) (any, error) {
	d, err := ghaevent.New(ghaevent.Options{EventName: name, Payload: payload})
	if err != nil {
		return nil, err
	}
	return d.Read(context.Background())
}

// TestEventsShape checks the facts docs/github.md states about the events
// workflow, in every variant.
func TestEventsShape(t *testing.T) {
	for _, gc := range goldenCases {
		files, err := Generate(gc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On          map[string]struct{ Types []string } `yaml:"on"`
			Permissions map[string]string                   `yaml:"permissions"`
			Concurrency any                                 `yaml:"concurrency"`
			Jobs        map[string]struct {
				If          string            `yaml:"if"`
				Permissions map[string]string `yaml:"permissions"`
				Concurrency any               `yaml:"concurrency"`
				Steps       []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
					Env  map[string]string `yaml:"env"`
					Run  string            `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(files[EventsFile], &wf); err != nil {
			t.Fatalf("%s: %v", gc.dir, err)
		}
		if _, ok := wf.On["pull_request_target"]; ok || len(wf.On) != len(eventTriggers) {
			t.Errorf("%s: triggers %v", gc.dir, wf.On)
		}
		job, ok := wf.Jobs["dispatch"]
		if !ok || len(wf.Jobs) != 1 || len(wf.Permissions) != 0 || wf.Concurrency != nil || job.Concurrency != nil {
			t.Fatalf("%s: events workflow = %+v", gc.dir, wf)
		}
		want := map[string]string{"actions": "write", "contents": "read", "pull-requests": "read"}
		if len(job.Permissions) != len(want) {
			t.Errorf("%s: permissions %v, want %v", gc.dir, job.Permissions, want)
		}
		for k, v := range want {
			if job.Permissions[k] != v {
				t.Errorf("%s: permission %s = %q, want %q", gc.dir, k, job.Permissions[k], v)
			}
		}
		if !forkGuard.MatchString(job.If) {
			t.Errorf("%s: dispatch job does not skip forks: if %q", gc.dir, job.If)
		}
		first, last := job.Steps[0], job.Steps[len(job.Steps)-1]
		if first.With["ref"] != "${{ github.event.repository.default_branch }}" || first.With["persist-credentials"] != "false" {
			t.Errorf("%s: checkout with %v", gc.dir, first.With)
		}
		if last.Run != "fullsend dispatch --input-driver gha-event --output-driver gha-dispatch" ||
			len(last.Env) != 1 || last.Env["GITHUB_TOKEN"] != "${{ secrets.GITHUB_TOKEN }}" {
			t.Errorf("%s: dispatch step %+v", gc.dir, last)
		}
	}
}

// TestCheckEventsFindings edits the generated events workflow into the
// dangerous variants and expects the findings at the edited lines.
func TestCheckEventsFindings(t *testing.T) {
	const guard = "    if: >-\n      (github.event_name != 'pull_request' && github.event_name != 'pull_request_review') ||\n" +
		"      github.event.pull_request.head.repo.full_name == github.repository\n"
	const ref = "ref: ${{ github.event.repository.default_branch }}"
	type edit struct{ old, new string }
	for _, tc := range []struct {
		name  string
		edits []edit
		want  []string // finding: marker of its line | piece of its message
	}{
		{"generated", nil, nil},
		{"no fork guard", []edit{{guard, ""}}, []string{"  dispatch:|without skipping forks"}},
		{"fork-unsafe guard", []edit{{"github.event.pull_request.head.repo.full_name == github.repository",
			"!github.event.pull_request.head.repo.fork"}}, []string{"  dispatch:|without skipping forks"}},
		{"guard reversed is fine", []edit{{"github.event.pull_request.head.repo.full_name == github.repository",
			"github.repository == github.event.pull_request.head.repo.full_name"}}, nil},
		{"pull_request_target with head checkout", []edit{{"  pull_request:\n", "  pull_request_target:\n"},
			{ref, "ref: ${{ github.event.pull_request.head.sha }}"}},
			[]string{"head.sha|checks out the pull request's head"}},
		{"pull_request_target with refs/pull", []edit{{"  pull_request:\n", "  pull_request_target:\n"},
			{ref, "ref: refs/pull/${{ github.event.number }}/merge"}},
			[]string{"refs/pull/|under pull_request_target"}},
		{"pull_request_target secrets to forks", []edit{{"  pull_request:\n", "  pull_request_target:\n"}, {guard, ""}},
			[]string{"  dispatch:|reads secrets under pull_request_target", "  dispatch:|without skipping forks"}},
		{"untrusted expression in run", []edit{{"--output-driver gha-dispatch\n",
			"--output-driver gha-dispatch --repo \"${{ github.event.pull_request.head.repo.full_name }}\"\n"}},
			[]string{"--repo|script injection"}},
		{"secret at job level", []edit{{"    runs-on:", "    env:\n      T: ${{ secrets.GITHUB_TOKEN }}\n    runs-on:"}},
			[]string{"      T:|every step"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := generated(t, false)
			path := wfDir + EventsFile
			for _, e := range tc.edits {
				if !strings.Contains(set[path], e.old) {
					t.Fatalf("events workflow does not contain %q", e.old)
				}
				set[path] = strings.Replace(set[path], e.old, e.new, 1)
			}
			rep := Check(toFiles(set))
			if len(rep.Findings) != len(tc.want) {
				t.Fatalf("findings = %v, want %d", rep.Findings, len(tc.want))
			}
			for i, w := range tc.want {
				marker, msg, _ := strings.Cut(w, "|")
				f := rep.Findings[i]
				if f.File != path || f.Line != lineOf(t, set[path], marker) || !strings.Contains(f.Message, msg) {
					t.Errorf("finding %d = %s, want line of %q, …%s…", i, f, marker, msg)
				}
			}
		})
	}
}

// TestRunNameShowsKey: the run workflow's title shows the idempotency key
// of a polled change (ghadispatch.Title, which the crash lookup matches),
// with a guard for the empty work_item of a hand-started run.
func TestRunNameShowsKey(t *testing.T) {
	const want = "fullsend ${{ inputs.agent }} ${{ fromJSON(inputs.work_item || '{}').idempotency_key || inputs.serialization_key }}"
	for _, gc := range goldenCases {
		files, err := Generate(gc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			RunName string `yaml:"run-name"`
		}
		if err := yaml.Unmarshal(files[RunFile], &wf); err != nil {
			t.Fatal(err)
		}
		if wf.RunName != want {
			t.Errorf("%s: run-name %q, want %q", gc.dir, wf.RunName, want)
		}
	}
}
