// Package layers holds the test of the dependency rule: ARCHITECTURE.md's
// table of layers lists every package of the module, and no production
// file imports a package of a layer above its own. The table is read from
// ARCHITECTURE.md itself, so that the document and the rule cannot
// disagree.
package layers

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root, relative to this package.
var root = filepath.Join("..", "..")

// tableHeading is the heading of ARCHITECTURE.md's section whose first
// table is the one read.
const tableHeading = "## Layers and the dependency rule"

// layer is one row of the table.
type layer struct {
	num      int
	name     string
	patterns []string // module-relative package paths; "p/..." is p and every package below it
	onlyBy   string   // "": any layer above may import it; else the only other layer that may
}

// table is ARCHITECTURE.md's layers, bottom first.
type table []layer

// TestDependencyRule: every package of the module is in one layer of the
// table, every package the table names exists, and no production file
// imports a package of a higher layer, nor an emulator outside the layer
// allowed to.
func TestDependencyRule(t *testing.T) {
	tab := readTable(t)
	pkgs := modulePackages(t)
	for _, p := range check(tab, pkgs) {
		t.Error(p)
	}
}

// TestRunnerImportsNoDriver: `fullsend run` reaches the input, output and
// poll drivers only through what the command injects (runner.Request):
// its production code imports none of them, only the contracts and the
// platform packages below them.
func TestRunnerImportsNoDriver(t *testing.T) {
	if p := runnerDrivers(modulePackages(t)); len(p) > 0 {
		t.Errorf("internal/runner imports drivers: %v", p)
	}
}

// runnerDrivers are the drivers internal/runner imports.
func runnerDrivers(pkgs map[string][]string) []string {
	var out []string
	for _, imp := range pkgs["internal/runner"] {
		for _, drivers := range []string{"internal/input/", "internal/output/", "internal/poll/"} {
			if strings.HasPrefix(imp, drivers) {
				out = append(out, imp)
			}
		}
	}
	return out
}

// TestRuleRefusesImportsBackUp: the rule as ARCHITECTURE.md states it
// refuses, each on its own, the imports that once pointed back up the
// layers (and others like them), an emulator imported by production code
// below the commands, and a package the table does not list.
func TestRuleRefusesImportsBackUp(t *testing.T) {
	tab := readTable(t)
	pkgs := modulePackages(t)
	if p := check(tab, pkgs); len(p) > 0 {
		t.Fatalf("the tree breaks the rule already: %v", p)
	}
	cases := []struct{ name, from, to string }{
		{"the Jira client reads the configuration", "internal/jira", "internal/config"},
		{"the Jira client validates keys with the lock's rules", "internal/jira", "internal/polllock"},
		{"the configuration takes the lock's defaults", "internal/config", "internal/polllock"},
		{"the entity contract reads the configuration", "internal/entity", "internal/config"},
		{"the metrics read the poll cycle's stats", "internal/metrics", "internal/poll"},
		{"the metrics take the controller's backoff", "internal/metrics", "internal/poll/controller"},
		{"the metrics' cycle feeds the output contract", "internal/output", "internal/poll"},
		{"the runner takes a poll driver's client options", "internal/runner", "internal/poll/jirapoll"},
		{"a document reads the harness files", "internal/receipts", "internal/harness"},
		{"the core drives the poller", "internal/core", "internal/poll"},
		{"production code outside the commands imports an emulator", "internal/poll", "sim/jirasim"},
		{"an emulator imports a platform client", "sim/githubsim", "internal/github"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			with := clone(pkgs)
			if _, ok := with[tc.from]; !ok {
				t.Fatalf("%s is no package of the module", tc.from)
			}
			with[tc.from] = append(with[tc.from], tc.to)
			if p := check(tab, with); len(p) == 0 {
				t.Errorf("%s importing %s is allowed", tc.from, tc.to)
			}
		})
	}
	for _, to := range []string{"internal/output/ghadispatch", "internal/output/gitlabpipeline", "internal/input/ghaevent", "internal/poll/jirapoll"} {
		t.Run("the runner imports the driver "+to, func(t *testing.T) {
			with := clone(pkgs)
			with["internal/runner"] = append(with["internal/runner"], to)
			if len(runnerDrivers(with)) == 0 {
				t.Errorf("internal/runner importing %s is allowed", to)
			}
		})
	}
	t.Run("a package in no layer", func(t *testing.T) {
		with := clone(pkgs)
		with["internal/unlisted"] = nil
		if p := check(tab, with); len(p) == 0 {
			t.Error("a package missing from the table is allowed")
		}
	})
	t.Run("a row naming no package", func(t *testing.T) {
		stale := slices.Clone(tab)
		stale[0].patterns = append(slices.Clone(stale[0].patterns), "internal/gone")
		if p := check(stale, pkgs); len(p) == 0 {
			t.Error("a row naming a package that does not exist is allowed")
		}
	})
}

func clone(pkgs map[string][]string) map[string][]string {
	out := make(map[string][]string, len(pkgs))
	for k, v := range pkgs {
		out[k] = slices.Clone(v)
	}
	return out
}

// check returns every breach of the rule: pkgs maps each package of the
// module (its path relative to the module) to the module packages its
// production files import.
func check(tab table, pkgs map[string][]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range tab {
		for _, p := range l.patterns {
			if seen[p] {
				out = append(out, fmt.Sprintf("%s is listed twice in the table", p))
			}
			seen[p] = true
			if !slices.ContainsFunc(keys(pkgs), func(d string) bool { return matches(p, d) }) {
				out = append(out, fmt.Sprintf("layer %d (%s) lists %s, which is no package of the module", l.num, l.name, p))
			}
		}
	}
	for _, dir := range keys(pkgs) {
		from, ok := tab.of(dir)
		if !ok {
			out = append(out, fmt.Sprintf("package %s is in no layer of ARCHITECTURE.md's table", dir))
			continue
		}
		for _, imp := range pkgs[dir] {
			to, ok := tab.of(imp)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s imports %s, which is in no layer", dir, imp))
			case to.num > from.num:
				out = append(out, fmt.Sprintf("%s (layer %d, %s) imports %s (layer %d, %s): an import pointing back up",
					dir, from.num, from.name, imp, to.num, to.name))
			case to.onlyBy != "" && to.num != from.num && from.name != to.onlyBy:
				out = append(out, fmt.Sprintf("%s (layer %d, %s) imports %s: layer %s is imported only by %s",
					dir, from.num, from.name, imp, to.name, to.onlyBy))
			}
		}
	}
	return out
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// matches reports whether pattern covers package dir.
func matches(pattern, dir string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	return dir == pattern
}

// of is the layer of package dir: the row that names it, else the row
// whose "p/..." covers it with the longest p.
func (tab table) of(dir string) (layer, bool) {
	var best layer
	bestLen := -1
	for _, l := range tab {
		for _, p := range l.patterns {
			switch {
			case p == dir:
				return l, true
			case matches(p, dir) && len(p) > bestLen:
				best, bestLen = l, len(p)
			}
		}
	}
	return best, bestLen >= 0
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// readTable reads the first table after tableHeading in ARCHITECTURE.md:
// | layer | name | packages | imported only by |, a row per layer, bottom
// first, numbered from 1.
func readTable(t *testing.T) table {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tab table
	in, header := false, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == tableHeading:
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			if len(tab) > 0 {
				return tab
			}
			continue
		}
		if header < 2 { // the header and its rule
			header++
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("ARCHITECTURE.md:%d: a layer row has 4 cells (layer, name, packages, imported only by), got %d", n, len(cells))
		}
		num, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil || num != len(tab)+1 {
			t.Fatalf("ARCHITECTURE.md:%d: layer %q: want %d (layers are numbered from 1, bottom first)", n, cells[0], len(tab)+1)
		}
		l := layer{num: num, name: strings.TrimSpace(cells[1])}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			l.patterns = append(l.patterns, m[1])
		}
		if len(l.patterns) == 0 {
			t.Fatalf("ARCHITECTURE.md:%d: layer %d lists no package", n, num)
		}
		if by := strings.TrimSpace(cells[3]); by != "" && by != "any layer above" {
			l.onlyBy = strings.TrimSuffix(by, " (and tests)")
		}
		tab = append(tab, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tab) == 0 {
		t.Fatalf("ARCHITECTURE.md has no table of layers after %q", tableHeading)
	}
	for _, l := range tab {
		if l.onlyBy != "" && !slices.ContainsFunc(tab, func(o layer) bool { return o.name == l.onlyBy }) {
			t.Fatalf("layer %d (%s) is imported only by %q, which is no layer", l.num, l.name, l.onlyBy)
		}
	}
	return tab
}

// modulePackages maps every package directory of the module (relative,
// with slashes) to the module packages its production files import. Test
// files make a package (a directory of tests only is one) but their
// imports are free; nested modules (deploy, tools) are not walked.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	mod := modulePath(t)
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = nil
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, mod+"/"); ok && !slices.Contains(pkgs[dir], dep) {
				pkgs[dir] = append(pkgs[dir], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// modulePath is the module's path, from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(p)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}
