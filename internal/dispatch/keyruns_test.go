package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

type timedInput struct{ at changepos.Pos }

func (timedInput) Name() string                               { return "timed" }
func (timedInput) Read(context.Context) (*event.Event, error) { return nil, nil }
func (i timedInput) ChangePos() changepos.Pos                 { return i.at }

type plainInput struct{}

func (plainInput) Name() string                               { return "plain" }
func (plainInput) Read(context.Context) (*event.Event, error) { return nil, nil }

// TestKeyRuns: an input that knows its change's position gives every run
// the idempotency key scope key "@" Unix milliseconds, "." and the
// change's id when it has one (the pollers' key for the same change);
// others leave it empty.
func TestKeyRuns(t *testing.T) {
	at := time.UnixMilli(1796050800123)
	cases := []struct {
		name string
		in   interface {
			Name() string
			Read(context.Context) (*event.Event, error)
		}
		want string
	}{
		{"change time", timedInput{changepos.At(at)}, "triage:acme/platform:gitlab:change_proposal:1@1796050800123"},
		{"change time and id", timedInput{changepos.Pos{At: at, ID: 4021}}, "triage:acme/platform:gitlab:change_proposal:1@1796050800123.4021"},
		{"zero change time", timedInput{}, ""},
		{"no change time", plainInput{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runs := []plan.Run{{Harness: "triage", Key: "triage:acme/platform:gitlab:change_proposal:1"}}
			keyRuns(tc.in, runs)
			if got := runs[0].WorkItem.IdempotencyKey; got != tc.want {
				t.Errorf("key = %q, want %q", got, tc.want)
			}
		})
	}
}
