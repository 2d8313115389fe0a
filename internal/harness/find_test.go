package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestFindChecksContainment: Find applies the containment check to an
// agent whose source config.Load has not resolved (a hand-built Config),
// so neither ".." nor a symlink can point `fullsend run` outside the
// config directory; the problem is reported at the agents entry.
func TestFindChecksContainment(t *testing.T) {
	outside := testfs.WriteTree(t, map[string]string{"h.yaml": "role: r\nrun: {command: [x]}\n"})
	dir := testfs.WriteTree(t, map[string]string{"ok.yaml": "role: r\nrun: {command: [ok]}\n"})
	if err := os.Symlink(filepath.Join(outside, "h.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	off := false
	cfg := &config.Config{Dir: dir, File: filepath.Join(dir, "config.yaml"), Agents: []config.Agent{
		{Name: "ok", Source: "ok.yaml", Line: 3, Col: 5},
		{Name: "dots", Source: "../" + filepath.Base(outside) + "/h.yaml", Line: 4, Col: 5},
		{Name: "link", Source: "link.yaml", Line: 5, Col: 5},
		{Name: "off", Source: "ok.yaml", Enabled: &off},
	}}
	cases := []struct{ name, want string }{
		{"dots", `config.yaml:4:5: agent "dots": source: "../` + filepath.Base(outside) + `/h.yaml": a ".." component is not allowed`},
		{"link", `config.yaml:5:5: agent "link": source: "link.yaml" resolves (through a symlink) to `},
		{"off", `harness "off" is disabled in ` + cfg.File},
		{"nope", `harness "nope" is not registered in ` + cfg.File},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Find(cfg, tc.name)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Find = %v, %v; want an error containing %q", h, err, tc.want)
			}
		})
	}
	h, err := Find(cfg, "ok")
	if err != nil || h.Name != "ok" || strings.Join(h.Command, " ") != "ok" || !h.Enabled {
		t.Fatalf("Find(ok) = %+v, %v", h, err)
	}
}
