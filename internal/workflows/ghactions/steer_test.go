package ghactions

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSteerPermissions: the run job gets what a run that steers reads
// and writes (its runs, the item's comments and the record reply), and
// with --reusable the caller grants it; without a harness that steers it
// keeps contents: read and actions: read (the start-up check lists the
// scope's runs) alone. The workflows check clean either way.
func TestSteerPermissions(t *testing.T) {
	want := map[string]string{"contents": "read", "actions": "read", "issues": "write", "pull-requests": "write"}
	for _, tc := range []struct {
		name     string
		o        Options
		file     string
		job      string
		steering bool
	}{
		{"run, steer", Options{Steer: true}, RunFile, "run", true},
		{"run, no steer", Options{}, RunFile, "run", false},
		{"reusable, steer", Options{Steer: true, Reusable: true}, ReusableFile, "run", true},
		{"caller, steer", Options{Steer: true, Reusable: true}, RunFile, "run", true},
		{"caller, no steer", Options{Reusable: true}, RunFile, "run", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := generatedWith(t, tc.o)
			p := jobPermissions(t, files, tc.file, tc.job)
			for k, v := range want {
				if got := p[k]; (got == v) != (tc.steering || k == "contents" || k == "actions") {
					t.Errorf("%s job %s: %s %q", tc.file, tc.job, k, got)
				}
			}
			if len(p) != map[bool]int{true: 4, false: 2}[tc.steering] {
				t.Errorf("%s job %s: permissions %v", tc.file, tc.job, p)
			}
			var in []File
			for name, data := range files {
				in = append(in, File{Name: name, Data: data})
			}
			if rep := Check(in); len(rep.Findings) != 0 {
				t.Errorf("workflows check: %+v", rep.Findings)
			}
		})
	}
}

// generatedWith is Generate(o) with the test pin.
func generatedWith(t *testing.T, o Options) map[string][]byte {
	t.Helper()
	o.Install = testPin
	files, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// jobPermissions is the permissions of job in file.
func jobPermissions(t *testing.T, files map[string][]byte, file, job string) map[string]string {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(files[file], &wf); err != nil {
		t.Fatal(err)
	}
	return wf.Jobs[job].Permissions
}
