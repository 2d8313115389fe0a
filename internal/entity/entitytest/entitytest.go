// Package entitytest loads the golden entities of package entity
// (internal/entity/testdata) for the tests of other packages.
package entitytest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
)

// Golden decodes internal/entity/testdata/<name>, failing t when it
// cannot be read or decoded.
func Golden(t testing.TB, name string) *entity.Entity {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	en, err := entity.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return en
}

// WorkItem is the golden Jira work item (jira-work-item.json).
func WorkItem(t testing.TB) *entity.Entity {
	t.Helper()
	return Golden(t, "jira-work-item.json")
}

// Check compares e, as indented JSON, with the golden file at path
// (rewritten first when update is set, as by a test's -update flag), and
// checks that the file is a valid NormalizedEntity.
func Check(t testing.TB, path string, e *entity.Entity, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the resolved entity (go test -update rewrites it):\n got: %s\nwant: %s", path, got, want)
	}
	if _, err := entity.Decode(want); err != nil {
		t.Errorf("%s is not a valid entity: %v", path, err)
	}
}
