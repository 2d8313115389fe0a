package dispatch

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/output"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Event-only harnesses produce the plans they always did: every example
// event through the example configuration (no entity-source harness) to
// each plan-printing output, byte for byte against the goldens recorded
// before entities reached the runs.
func TestEventOnlyPlansGolden(t *testing.T) {
	events := []string{
		filepath.Join("..", "..", "examples", "events", "triage-comment.json"),
		filepath.Join("..", "..", "examples", "events", "label-added.json"),
		filepath.Join("..", "..", "examples", "events", "outsider-comment.json"),
	}
	for _, path := range events {
		for _, out := range []string{"json", "gha-matrix"} {
			name := strings.TrimSuffix(filepath.Base(path), ".json") + "." + out
			t.Run(name, func(t *testing.T) {
				ev, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				var stdout bytes.Buffer
				o := Options{ConfigDir: filepath.Join("..", "..", "examples", ".fullsend"), OutputDriver: out, Stdin: bytes.NewReader(ev),
					Output: output.Env{Getenv: func(string) string { return "" }, Stdout: &stdout}}
				if err := Run(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "eventonly", name+".golden")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(stdout.Bytes(), want) {
					t.Errorf("plan changed:\n got %s\nwant %s", stdout.Bytes(), want)
				}
			})
		}
	}
}
