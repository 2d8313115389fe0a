package cli

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// listedPackage is the part of `go list -json` this test reads.
type listedPackage struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Module                  *struct{ Main bool }
}

// TestNoStringDurationsInLogs type-checks every package of the module and
// fails on a log attribute that turns a time.Duration into a string
// (d.String(), fmt.Sprint(d)…): JSON logs write durations as "<key>_ms"
// numbers (durationsInMS), which needs the time.Duration itself.
func TestNoStringDurationsInLogs(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json", "github.com/fullsend-dev/fullsend/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	var mine []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Main {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	checked := 0
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isSlog(info, call.Fun) && !isLogWrapper(info, call.Fun) {
					return true
				}
				for _, a := range call.Args {
					if stringDuration(info, a) {
						t.Errorf("%s: a duration logged as a string; pass the time.Duration itself", fset.Position(a.Pos()))
					}
				}
				return true
			})
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked %d packages of the module; go list found too few", checked)
	}
}

// isSlog reports whether fun is a function or method of log/slog.
func isSlog(info *types.Info, fun ast.Expr) bool {
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.Ident:
		id = f
	default:
		return false
	}
	fn, ok := info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "log/slog"
}

// isLogWrapper reports whether fun is one of the module's own functions
// that take slog's key-value pairs (a final `args ...any` and no format
// string), such as jirapoll's warnOnce.
func isLogWrapper(info *types.Info, fun ast.Expr) bool {
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.Ident:
		id = f
	default:
		return false
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || !strings.HasPrefix(fn.Pkg().Path(), "github.com/fullsend-dev/fullsend/") {
		return false
	}
	sig := fn.Signature()
	ps := sig.Params()
	if !sig.Variadic() || ps.At(ps.Len()-1).Name() != "args" {
		return false
	}
	for i := range ps.Len() {
		if n := ps.At(i).Name(); n == "format" || n == "detail" {
			return false
		}
	}
	return true
}

// stringDuration reports whether e is d.String() or fmt.Sprint*(…, d, …)
// for a time.Duration d.
func stringDuration(info *types.Info, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if s := info.Selections[sel]; s != nil && sel.Sel.Name == "String" {
		return isDuration(s.Recv())
	}
	if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" {
		for _, a := range call.Args {
			if isDuration(info.TypeOf(a)) {
				return true
			}
		}
	}
	return false
}

func isDuration(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}
