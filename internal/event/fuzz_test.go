package event

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics and that every event it
// accepts survives encoding and decoding unchanged and passes Validate.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		exampleJSON, pullRequestJSON, discussionJSON,
		``, `null`, `{}`, `[]`, `{"repo":"a/../b"}`, `{"repo":1e400}`,
		`{"entity":{"id":1.0}}`, `{"repo":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		if err != nil {
			if ev != nil {
				t.Fatal("event returned with an error")
			}
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := ev.Validate(); err != nil {
			t.Fatalf("accepted event fails Validate: %v", err)
		}
		again, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		ev2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded event rejected: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(ev, ev2) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", ev, ev2)
		}
	})
}
