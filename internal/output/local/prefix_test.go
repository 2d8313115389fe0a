package local

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrefixWriter(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"one line", []string{"a\n"}, "P a\n"},
		{"split line", []string{"a", "b", "c\n"}, "P abc\n"},
		{"many lines in one write", []string{"a\nb\n\nc\n"}, "P a\nP b\nP \nP c\n"},
		{"partial tail flushed", []string{"a\nb"}, "P a\nP b\n"},
		{"nothing", nil, ""},
		{"long line is cut", []string{long}, "P " + long + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := newPrefixWriter(&buf, "P ")
			for _, c := range tc.chunks {
				if n, err := w.Write([]byte(c)); err != nil || n != len(c) {
					t.Fatalf("write = %d, %v", n, err)
				}
			}
			w.Flush()
			if buf.String() != tc.want {
				t.Fatalf("got %q, want %q", buf.String(), tc.want)
			}
		})
	}
}

// FuzzPrefixWriter: however child output is split into writes, every
// output line is the prefix plus one input line.
func FuzzPrefixWriter(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint8(1))
	f.Add([]byte("no newline"), uint8(3))
	f.Add([]byte("\n\n\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		var buf bytes.Buffer
		w := newPrefixWriter(&buf, ">")
		cut := int(split)
		if cut > len(data) {
			cut = len(data)
		}
		w.Write(data[:cut])
		w.Write(data[cut:])
		w.Flush()
		var want bytes.Buffer
		if len(data) > 0 {
			lines := strings.SplitAfter(string(data), "\n")
			for _, l := range lines {
				if l == "" {
					continue
				}
				if !strings.HasSuffix(l, "\n") {
					l += "\n"
				}
				want.WriteString(">" + l)
			}
		}
		if len(data) < maxLine && buf.String() != want.String() {
			t.Fatalf("got %q, want %q", buf.String(), want.String())
		}
	})
}
