package ghactions

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

const wfDir = ".github/workflows/"

// generated returns the generated workflows as check input.
func generated(t *testing.T, reusable bool) map[string]string {
	t.Helper()
	files, err := Generate(Options{Install: testPin, Reusable: reusable, Secrets: jiraSecrets})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, data := range files {
		out[wfDir+name] = string(data)
	}
	return out
}

func toFiles(m map[string]string) []File {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var fs []File
	for _, n := range names {
		fs = append(fs, File{Name: n, Data: []byte(m[n])})
	}
	return fs
}

// lineOf is the 1-based line of the first line containing marker.
func lineOf(t *testing.T, text, marker string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("marker %q not found", marker)
	return 0
}

func TestCheckPassesOnGenerated(t *testing.T) {
	for _, reusable := range []bool{false, true} {
		rep := Check(toFiles(generated(t, reusable)))
		if len(rep.Findings) != 0 {
			t.Fatalf("reusable=%v: findings on generated workflows: %v", reusable, rep.Findings)
		}
		wantJobs := 3 // the events dispatch job, the poll job, fullsend-run.yml's job
		if reusable {
			wantJobs = 4 // and the caller job and the reusable job instead of the run job
		}
		if rep.Jobs != wantJobs || rep.Files != len(generated(t, reusable)) || len(rep.Skipped) != 0 {
			t.Fatalf("reusable=%v: report = %+v", reusable, rep)
		}
	}
}

func TestCheckFindsBrokenVariants(t *testing.T) {
	const group = "group: fullsend-run-${{ inputs.serialization_key }}"
	for _, tc := range []struct {
		name     string
		reusable bool
		file     string // file to edit (base name)
		old, new string
		// the finding: file (base name), marker of its line in the edited
		// set, and a piece of its message
		wantFile, marker, msg string
	}{
		{"no normalized_entity input", false, RunFile,
			"      normalized_entity:\n        description: \"" + descriptions["normalized_entity"] + "\"\n        required: false\n        type: string\n        default: \"\"\n", "",
			RunFile, "    inputs:", "lacks normalized_entity"},
		{"normalized_entity required", false, RunFile,
			"      normalized_entity:\n        description: \"" + descriptions["normalized_entity"] + "\"\n        required: false", "      normalized_entity:\n        required: true # entity",
			RunFile, "required: true # entity", "event-only runs never send it"},
		{"no concurrency", false, RunFile,
			"concurrency:\n  " + group + "\n  cancel-in-progress: false\n", "",
			RunFile, "  run:", "without a concurrency group"},
		{"group without the key", false, RunFile,
			group, "group: fullsend-run-${{ inputs.agent }}",
			RunFile, "group: fullsend-run-${{ inputs.agent }}", "does not contain the serialization key"},
		{"bare string group without the key", false, RunFile,
			"concurrency:\n  " + group + "\n  cancel-in-progress: false\n", "concurrency: fullsend-run\n",
			RunFile, "concurrency: fullsend-run", "does not contain the serialization key"},
		{"group from env, not available there", false, RunFile,
			group, "group: fullsend-run-${{ env.FULLSEND_SERIALIZATION_KEY }}",
			RunFile, "env.FULLSEND_SERIALIZATION_KEY }}", "does not contain the serialization key"},
		{"concurrency without group", false, RunFile,
			"  " + group + "\n", "",
			RunFile, "concurrency:", "has no group"},
		{"cancel-in-progress true", false, RunFile,
			"cancel-in-progress: false", "cancel-in-progress: true",
			RunFile, "cancel-in-progress: true", "would cancel an active agent run"},
		{"cancel-in-progress expression", false, RunFile,
			"cancel-in-progress: false", "cancel-in-progress: ${{ github.event_name == 'push' }}",
			RunFile, "cancel-in-progress: ${{", "not an expression"},
		{"cancel-in-progress quoted", false, RunFile,
			"cancel-in-progress: false", `cancel-in-progress: "false"`,
			RunFile, `cancel-in-progress: "false"`, "must be false"},
		{"job-level group overrides a good workflow group", false, RunFile,
			"    runs-on: ubuntu-latest\n    timeout-minutes: 60\n", "    concurrency: agents\n    runs-on: ubuntu-latest\n    timeout-minutes: 60\n",
			RunFile, "concurrency: agents", "does not contain the serialization key"},
		{"callee uses the caller's prefix", true, ReusableFile,
			"group: fullsend-agent-", "group: fullsend-run-",
			ReusableFile, "group: fullsend-run-", "collides with prefix \"fullsend-run-\" of its caller .github/workflows/fullsend-run.yml:"},
		{"callee prefix extends the caller's", true, ReusableFile,
			"group: fullsend-agent-", "group: fullsend-run-x-",
			ReusableFile, "group: fullsend-run-x-", "collides with prefix"},
		{"caller without concurrency", true, RunFile,
			"concurrency:\n  " + group + "\n  cancel-in-progress: false\n", "",
			RunFile, "  run:", "without a concurrency group"},
		{"callee without concurrency", true, ReusableFile,
			"    concurrency:\n      group: fullsend-agent-${{ inputs.serialization_key }}\n      cancel-in-progress: false\n", "",
			ReusableFile, "  run:", "without a concurrency group"},
		{"queue max keeps every pending run", false, RunFile,
			"cancel-in-progress: false", "cancel-in-progress: false\n  queue: max",
			RunFile, "queue: max", "queue"},
		{"queue single is the default", false, RunFile,
			"cancel-in-progress: false", "cancel-in-progress: false\n  queue: single",
			RunFile, "", ""},
		{"callee prefix differs from the caller's only in case", true, ReusableFile,
			"group: fullsend-agent-", "group: FULLSEND-RUN-",
			ReusableFile, "group: FULLSEND-RUN-", "collides with prefix"},
		{"workflow-level group from the matrix context", false, RunFile,
			group, "group: fullsend-run-${{ matrix.serialization_key }}",
			RunFile, "matrix.serialization_key }}", "workflow level"},
		{"invalid YAML", false, RunFile,
			"jobs:\n", "jobs:\n\tbad: tab\n",
			RunFile, "\tbad: tab", "not valid YAML"},
		{"fullsend run behind a path and flags", false, RunFile,
			agentRun, "run: |\n          echo start\n          exec ./bin/fullsend run --harness x\n",
			RunFile, "", ""}, // still serialized: no finding
		{"agent run from a shell that stays", false, RunFile,
			agentRun, "run: |\n          echo start\n          fullsend run\n",
			RunFile, "          fullsend run", "stays alive with the tokens"},
		{"run job without actions: read", false, RunFile,
			"      actions: read # list", "      issues: read # list",
			RunFile, "    permissions:", "do not grant actions: read"},
		{"caller job without actions: read", true, RunFile,
			"      actions: read\n", "",
			RunFile, "    permissions:", "do not grant actions: read"},
		{"run job with read-all", false, RunFile,
			"    permissions:\n      actions: read", "    permissions: read-all\n    x-was:\n      actions: read",
			RunFile, "", ""},
		{"agent run through sudo without exec", true, ReusableFile,
			agentRun, "run: sudo -E fullsend run\n",
			ReusableFile, "run: sudo -E fullsend run", "exec fullsend run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := generated(t, tc.reusable)
			edit(t, set, tc.file, tc.old, tc.new)
			expectOne(t, set, tc.wantFile, tc.marker, tc.msg)
		})
	}
}

// edit replaces the first old in file (base name) of set with new.
func edit(t *testing.T, set map[string]string, file, old, new string) {
	t.Helper()
	path := wfDir + file
	if !strings.Contains(set[path], old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	set[path] = strings.Replace(set[path], old, new, 1)
}

// expectOne checks set and wants exactly one finding, in wantFile (base
// name) at the line holding marker, whose message contains msg; no
// finding at all when marker is empty.
func expectOne(t *testing.T, set map[string]string, wantFile, marker, msg string) {
	t.Helper()
	rep := Check(toFiles(set))
	if marker == "" {
		if len(rep.Findings) != 0 {
			t.Fatalf("findings = %v, want none", rep.Findings)
		}
		return
	}
	wantPath := wfDir + wantFile
	wantLine := lineOf(t, set[wantPath], marker)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings = %v, want exactly one", rep.Findings)
	}
	f := rep.Findings[0]
	if f.File != wantPath || f.Line != wantLine || !strings.Contains(f.Message, msg) {
		t.Fatalf("finding = %s, want %s:%d: …%s…", f, wantPath, wantLine, msg)
	}
}

func TestCheckJobKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yaml     string
		jobs     int
		findings int
		skipped  bool
	}{
		{"not fullsend", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: make test\n", 0, 0, true},
		{"fullsend runner is not fullsend run", "jobs:\n  b:\n    steps:\n      - run: fullsend runner\n", 0, 0, true},
		{"fullsend poll is not a run, but needs a group", "jobs:\n  b:\n    steps:\n" + stateSteps("      - run: fullsend poll --state-dir s\n"), 1, 1, false},
		{"fullsend poll in a group", "concurrency: p\njobs:\n  b:\n    steps:\n" + stateSteps("      - run: fullsend poll --state-dir s\n"), 1, 0, false},
		{"fullsend poll without its state", "concurrency: p\njobs:\n  b:\n    steps:\n      - run: fullsend poll\n", 1, 1, false},
		{"fullsend dispatch", "jobs:\n  b:\n    steps:\n      - run: fullsend dispatch --input-driver gha-event\n", 1, 0, false},
		{"call of a missing workflow is checked", "jobs:\n  b:\n    uses: ./.github/workflows/gone.yml\n", 0, 1, false},
		{"matrix key is scoped", "jobs:\n  b:\n    concurrency:\n      group: r-${{ matrix.serialization_key }}\n    steps:\n      - run: fullsend run\n", 1, 0, false},
		{"key from a previous job", "jobs:\n  b:\n    concurrency: r-${{ needs.plan.outputs.serialization_key }}\n    steps:\n      - run: fullsend run\n", 1, 0, false},
		{"key from vars is not a subject", "jobs:\n  b:\n    concurrency: r-${{ vars.serialization_key }}\n    steps:\n      - run: fullsend run\n", 1, 1, false},
		{"remote fullsend workflow, unpinned", "jobs:\n  b:\n    uses: acme/ci/.github/workflows/fullsend-run.yml@v1\n", 1, 2, false},
		{"remote other workflow", "jobs:\n  b:\n    uses: acme/ci/.github/workflows/build.yml@v1\n", 0, 0, true},
		{"empty file", "", 0, 0, true},
		{"top level list", "- a\n- b\n", 0, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check([]File{{Name: "w.yml", Data: []byte(tc.yaml)}})
			if rep.Jobs != tc.jobs || len(rep.Findings) != tc.findings {
				t.Fatalf("report = %+v, want %d jobs, %d findings", rep, tc.jobs, tc.findings)
			}
			wantSkipped := []workflows.Skipped(nil)
			if tc.skipped {
				wantSkipped = []workflows.Skipped{{File: "w.yml", Reason: NoFullsendJob}}
			}
			if !slices.Equal(rep.Skipped, wantSkipped) {
				t.Fatalf("skipped = %v, want %v", rep.Skipped, wantSkipped)
			}
		})
	}
}

// FuzzCheck: any file content yields findings (never a panic) whose lines
// lie within the file.
func FuzzCheck(f *testing.F) {
	for _, reusable := range []bool{false, true} {
		files, _ := Generate(Options{Install: testPin, Reusable: reusable})
		for _, d := range files {
			f.Add(d)
		}
	}
	f.Add([]byte("jobs:\n  a:\n    concurrency: x\n    steps: [{run: fullsend run}]\n"))
	f.Add([]byte("on: [workflow_call]\njobs: {a: {uses: ./x.yml}}\n"))
	f.Add([]byte(":\n\t- ["))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := Check([]File{{Name: "a.yml", Data: data}, {Name: "x.yml", Data: data}})
		lines := strings.Count(string(data), "\n") + 1
		for _, fd := range rep.Findings {
			if fd.Line < 0 || fd.Line > lines || fd.Message == "" {
				t.Fatalf("finding %s out of range (%d lines)", fd, lines)
			}
		}
	})
}
