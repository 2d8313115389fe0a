package githubpoll

import (
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// FuzzSplitKey: any run title word either is not a key or splits into a
// four-part scope tail and a position (time, then id) that render back to
// the same key.
func FuzzSplitKey(f *testing.F) {
	for _, s := range []string{"triage:acme/platform:github:work_item:7@1764504000000", "triage:acme/platform:github:work_item:7@1764504000000.4021",
		"fullsend", "a:b:c:d:e@x", "@", "a:b@1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		tail, pos, ok := splitKey(key)
		if !ok {
			return
		}
		if strings.Count(tail, ":") != 3 || pos.At.Location() != time.UTC {
			t.Fatalf("splitKey(%q) = %q, %s", key, tail, pos)
		}
		if back, ok := changepos.OfKey(key); !ok || back.Compare(pos) != 0 {
			t.Fatalf("splitKey(%q) = %s, OfKey %s", key, pos, back)
		}
		if !strings.HasSuffix(strings.SplitN(key, "@", 2)[0], tail) {
			t.Fatalf("splitKey(%q): tail %q is not the key's", key, tail)
		}
	})
}
