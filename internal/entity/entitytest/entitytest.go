// Package entitytest loads the golden entities of package entity
// (internal/entity/testdata) for the tests of other packages.
package entitytest

import (
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
