package jirapoll_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// FuzzLoadState: whatever state a file holds under a valid envelope, a
// client and driver start from it without failing, and the client's
// pacing stays within its configured rate; the driver's cadence holds
// only valid entries, at most reconcile.MaxSavedCadence saved.
func FuzzLoadState(f *testing.F) {
	f.Add([]byte(`{"account":{"credential":"c","id":"acct-me"},"jira":{"roles":{"PROJ":{"members":{"a":["Developers"]},"fetched":"2026-05-01T09:58:00Z"}},"ceiling":{"rate":1e300,"learned":true,"at":"2026-05-01T09:59:00Z"}},"poller":{"id":"p","rounds":7,"at":"2026-05-01T09:59:00Z","streak":{"PROJ-1":{"base":"2026-05-01T09:00:00Z","n":3}}}}`))
	f.Add([]byte(`{"jira":{"roles":{"bad key":{"members":null}},"ceiling":{"rate":-1}},"poller":{"id":""}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"sweep":{"after":10042,"cadence":[{"key":"h\u0000PROJ-1","at":"2026-05-01T09:30:00Z","every":3600000000000},{"key":"","every":-5},{"key":"x","at":"2027-01-01T00:00:00Z","every":1}]}}`))
	f.Add([]byte(`{"sweep":{"after":-3,"cadence":null}}`))
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clk := func() time.Time { return now }
	f.Fuzz(func(t *testing.T, state []byte) {
		if !json.Valid(state) {
			return
		}
		store := pollstate.Open(t.TempDir(), nil, clk).For(jirapoll.Name, "x")
		if err := store.Save(json.RawMessage(state)); err != nil {
			t.Fatal(err)
		}
		c, err := jira.New(jira.Options{BaseURL: "http://127.0.0.1:1", Token: "t", RPS: 10, Burst: 20, Now: clk})
		if err != nil {
			t.Fatal(err)
		}
		st := jirapoll.LoadState(store, c, "c", "")
		d, err := jirapoll.New(jirapoll.Options{API: c, SiteURL: "http://127.0.0.1:1", Repo: "a/b", Queries: []string{"project = PROJ"},
			PollerID: "fresh", Now: clk})
		if err != nil {
			t.Fatal(err)
		}
		st.Attach(d)
		st.Save()
		for _, e := range d.Cadence().Snapshot(now) {
			if e.Key == "" || e.Every <= 0 || now.Sub(e.At) >= e.Every || now.Before(e.At) {
				t.Fatalf("the cadence kept an entry that holds nothing back: %+v", e)
			}
		}
		if m := c.Memory(); m.Ceiling != nil && (m.Ceiling.Rate > 10 || m.Ceiling.Rate <= 0) {
			t.Fatalf("ceiling %v outside (0, 10]", m.Ceiling.Rate)
		}
	})
}
