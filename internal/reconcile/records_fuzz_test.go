package reconcile

import (
	"strings"
	"testing"
)

// FuzzSplitScoped: an idempotency key (a run title's word, a pipeline's FULLSEND_IDEMPOTENCY_KEY) splits into a key only when it is
// "<harness>:<4-part scope>@<suffix>", and then rebuilds exactly.
func FuzzSplitScoped(f *testing.F) {
	for _, s := range []string{
		"agent:acme/platform:github:work_item:1@v1:5f1d2c",
		"triage:acme/platform:github:change_proposal:7@1764504000000", "agent:acme/platform:gitlab:work_item:3@v1:ab",
		"agent:acme/platform:github:work_item:1@", ":a:b:c:d@v1", "a:b:c@1", "fullsend", "@@:::",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		h, tail, suffix, ok := SplitScoped(key)
		if !ok {
			return
		}
		if h == "" || suffix == "" || strings.Count(tail, ":") != 3 || h+":"+tail+"@"+suffix != key {
			t.Fatalf("SplitScoped(%q) = %q, %q, %q", key, h, tail, suffix)
		}
	})
}
