package entity

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func e2el(i int, text string) Element {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	return TextElement(ElementComment, string(rune('A'+i%26))+string(rune('a'+i/26)), at,
		event.Actor{ID: "u", Kind: event.ActorHuman, Role: event.RoleRead}, text)
}

// FuzzDecode checks that Decode never panics, that it fails only with a
// validation error, and that every entity it accepts passes Validate and
// survives encoding and decoding unchanged.
func FuzzDecode(f *testing.F) {
	for _, name := range goldens {
		f.Add(readGolden(f, name))
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"repo":"a/../b"}`, `{"id":1e400}`, `{"receipt":null}`,
		`{"state":{"created":"2026-13-01T00:00:00Z"}}`, `{"activity":[{"created":"2026-01-01T00:00:60Z"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			var verr *event.ValidationError
			if e != nil || !errors.As(err, &verr) {
				t.Fatalf("entity %v, error of type %T: %v", e, err, err)
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("accepted entity fails Validate: %v", err)
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		e2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded entity rejected: %v\n%s", err, again)
		}
		if third, _ := json.Marshal(e2); !bytes.Equal(again, third) {
			t.Fatalf("round trip changed the entity:\n%s\n%s", again, third)
		}
	})
}
