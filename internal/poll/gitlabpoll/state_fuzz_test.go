package gitlabpoll

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// FuzzRestore: whatever state a file holds under a valid envelope, a
// poller starts from it without failing, and believes no handled time or
// position in the future.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`{"handled":{"!1":{"updated":"2026-11-30T11:00:00Z","at":"2026-11-30T10:59:00Z"},"#2":{"at":"2026-11-30T11:30:00Z"}}}`))
	f.Add([]byte(`{"account":{"credential":"x","id":"me"},"handled":{"":{"updated":"2999-01-01T00:00:00Z"}}}`))
	f.Add([]byte(`{"handled":null}`))
	f.Add([]byte(`{"handled":{"!1":{"at":"2026-11-30T10:59:00Z","at_id":4021},"#2":{"at":"2026-11-30T10:59:00Z","at_id":-3}}}`))
	f.Add([]byte(`{"sweep":{"mrs":true,"page":3},"quarantined":{"agent:a/b:gitlab:work_item:1@v1:x":"2026-11-30T11:00:00Z","q":"2999-01-01T00:00:00Z"},` +
		`"pipelines":{"7":{"key":"agent:a/b:gitlab:work_item:1@v1:x","status":"failed","created":"2026-11-30T11:00:00Z"},"-1":{"key":"k"}},"pipelines_read":true,` +
		`"older":{"a/b:gitlab:work_item:1@v1:x":{"attempts":{"agent":[{"ID":3,"Suffix":"v1:x","Done":true}]},"complete":true}},"entities":{"#1":{"updated":"2026-11-30T11:00:00Z","entity":{}}}}`))
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	gl, err := glapi.NewClient(glapi.Options{APIURL: "http://127.0.0.1:1/api/v4", Token: "t"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, state []byte) {
		if !json.Valid(state) {
			return
		}
		dir := pollstate.Open(t.TempDir(), nil, func() time.Time { return now })
		store := dir.For(Name, "x")
		if err := store.Save(json.RawMessage(state)); err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Client: gl, Project: "a/b", Now: func() time.Time { return now }, State: store})
		if err != nil {
			t.Fatal(err)
		}
		for k, h := range p.handled {
			if k == "" || h.After(now.Add(maxSkew)) {
				t.Fatalf("believed %q handled at %s", k, h)
			}
		}
		for k, pos := range p.done {
			if k == "" || pos.At.After(now.Add(maxSkew)) || pos.ID < 0 {
				t.Fatalf("believed %q handled up to %s", k, pos)
			}
		}
		for k, at := range p.giveUps.Saved() {
			if k == "" || at.After(now.Add(maxSkew)) {
				t.Fatalf("believed %q quarantined at %s", k, at)
			}
		}
		for id, pp := range p.keys.pipes {
			if id <= 0 || pp.Created.After(now.Add(maxSkew)) {
				t.Fatalf("believed pipeline %d: %+v", id, pp)
			}
		}
		for k, c := range p.ents.Saved() {
			if c.Entity == nil || c.Entity.Validate() != nil {
				t.Fatalf("believed an invalid entity of %q", k)
			}
		}
		p.forget(now.Add(-DefaultLookback))
		p.SaveState()
		if _, err := os.Stat(store.Path()); err != nil {
			t.Fatal(err)
		}
	})
}
