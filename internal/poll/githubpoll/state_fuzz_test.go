package githubpoll

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// FuzzRestore: whatever state a file holds under a valid envelope, a
// poller starts from it without failing, and believes no handled time or
// floor in the future.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`{"floor":"2026-11-30T10:00:00Z","listings":{"repos/a/b/issues?x=1":{"etag":"W/\"1\"","items":[{}]}},"handled":{"1":"2026-11-30T11:00:00Z"}}`))
	f.Add([]byte(`{"account":{"credential":"x","id":"me"},"handled":{"-1":"2999-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"listings":{"":{"etag":"","items":null}}}`))
	f.Add([]byte(`null`))
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, state []byte) {
		if !json.Valid(state) {
			return
		}
		store := pollstate.Open(t.TempDir(), nil, func() time.Time { return now }).For(Name, "x")
		if err := store.Save(json.RawMessage(state)); err != nil {
			t.Fatal(err)
		}
		gh, err := github.NewClient("http://127.0.0.1:1", "t", github.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Client: gh, Repo: "a/b", Now: func() time.Time { return now }, State: store})
		if err != nil {
			t.Fatal(err)
		}
		for n, h := range p.handled {
			if n <= 0 || h.After(now.Add(maxSkew)) {
				t.Fatalf("believed handled %d at %s", n, h)
			}
		}
		if floor, _ := p.window(); floor.After(now) {
			t.Fatalf("floor %s in the future", floor)
		}
		p.SaveState()
	})
}
