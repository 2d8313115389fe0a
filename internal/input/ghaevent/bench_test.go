package ghaevent

import (
	"context"
	"os"
	"testing"
)

// BenchmarkRead maps a comment on a pull request, with in-memory lookups.
func BenchmarkRead(b *testing.B) {
	raw, err := os.ReadFile("testdata/issue_comment.created-pr.json")
	if err != nil {
		b.Fatal(err)
	}
	lk := newFake()
	b.ReportAllocs()
	for b.Loop() {
		d, _ := New(Options{EventName: "issue_comment", Payload: raw, Permissions: lk, Pulls: lk})
		if _, err := d.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
