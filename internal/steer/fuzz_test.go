package steer

import "testing"

func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"id":"comment-1","actor":"a","role":"write","text":"x","source_url":"u","received":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"id":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMessage(b)
		if err != nil {
			return
		}
		line, err := m.Encode()
		if err != nil {
			return
		}
		back, err := DecodeMessage(line)
		if err != nil || back.ID != m.ID || back.Text != m.Text {
			t.Fatalf("round trip of %q: %+v %v", b, back, err)
		}
	})
}

func FuzzParseAcks(f *testing.F) {
	f.Add([]byte("comment-1\ncomment-22\n"))
	f.Add([]byte("\x00comment-3\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for id := range ParseAcks(b) {
			if !validID(id) {
				t.Fatalf("ParseAcks(%q) gave %q", b, id)
			}
		}
	})
}

func FuzzParseMarker(f *testing.F) {
	f.Add(Marker("triage", 42))
	f.Add("[fullsend:steered /comment-1]")
	f.Fuzz(func(t *testing.T, s string) {
		h, id, ok := ParseMarker(s)
		if !ok {
			return
		}
		if h2, id2, ok2 := ParseMarker(Marker(h, id)); !ok2 || h2 != h || id2 != id {
			t.Fatalf("ParseMarker(Marker(%q, %d)) = %q %d %v", h, id, h2, id2, ok2)
		}
	})
}

func FuzzParseRunMarker(f *testing.F) {
	f.Add(RunMarker("gha-dispatch/9000"))
	f.Add("[fullsend:steered-into /]")
	f.Fuzz(func(t *testing.T, s string) {
		run, ok := ParseRunMarker(s)
		if !ok {
			return
		}
		if back, ok2 := ParseRunMarker(RunMarker(run)); !ok2 || back != run {
			t.Fatalf("ParseRunMarker(RunMarker(%q)) = %q %v", run, back, ok2)
		}
	})
}
