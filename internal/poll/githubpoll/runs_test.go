package githubpoll

import (
	"strings"
	"testing"
	"time"
)

// FuzzSplitKey: any run title word either is not a key or splits into a
// four-part scope tail and a time that render back to the same key.
func FuzzSplitKey(f *testing.F) {
	for _, s := range []string{"triage:acme/platform:github:work_item:7@1764504000000", "fullsend", "a:b:c:d:e@x", "@", "a:b@1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		tail, at, ok := splitKey(key)
		if !ok {
			return
		}
		if strings.Count(tail, ":") != 3 || at.Location() != time.UTC {
			t.Fatalf("splitKey(%q) = %q, %s", key, tail, at)
		}
		if !strings.HasSuffix(strings.SplitN(key, "@", 2)[0], tail) {
			t.Fatalf("splitKey(%q): tail %q is not the key's", key, tail)
		}
	})
}
