// Package examples holds example configurations; this test keeps them
// loadable as the README and docs show them.
package examples

import (
	"os"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestExampleConfigsLoad(t *testing.T) {
	env := map[string]string{"JIRA_BASE_URL": "http://127.0.0.1:18080"}
	for dir, agents := range map[string]int{".fullsend": 2, "rehearsal/.fullsend": 1} {
		_, reg, err := harness.LoadDir(dir, func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if reg.Len() != agents {
			t.Errorf("%s: %d enabled agents, want %d", dir, reg.Len(), agents)
		}
	}
}

func TestRehearsalSeedApplies(t *testing.T) {
	f, err := os.Open("rehearsal/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sd, err := jirasim.ParseSeed(f)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := jirasim.New(jirasim.Options{}).ApplySeed(sd)
	if err != nil || len(keys) != 3 {
		t.Fatalf("ApplySeed = %v, %v", keys, err)
	}
}
