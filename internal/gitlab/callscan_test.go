package gitlab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	gl "gitlab.com/gitlab-org/api/client-go"
)

const clientGo = "gitlab.com/gitlab-org/api/client-go"

// TestEveryClientCallIsDriven reads the module's source (tests left out)
// and fails on a call of a client-go service method (c.Issues.GetIssue,
// c.Pipelines.ListProjectPipelines…) that the calls table, and so
// FuzzAnswers and the route check, does not drive.
func TestEveryClientCallIsDriven(t *testing.T) {
	services := map[string]reflect.Type{} // gl.Client's service fields
	ct := reflect.TypeFor[gl.Client]()
	for i := range ct.NumField() {
		if f := ct.Field(i); f.IsExported() && f.Type.Kind() == reflect.Interface {
			services[f.Name] = f.Type
		}
	}
	found := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "deploy") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if !imports(f, clientGo) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			name, ok := serviceCall(n, services)
			if !ok {
				return true
			}
			found[name] = true
			if calls[name] == nil {
				t.Errorf("%s calls %s, which the calls table (calls_test.go) does not drive; add it, and its route to answers.go",
					fset.Position(n.Pos()), name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names() {
		if !found[name] {
			t.Errorf("the calls table drives %s, which no file of the module calls: remove it (or is the scan broken?)", name)
		}
	}
}

func imports(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			return true
		}
	}
	return false
}

// serviceCall reports "Service.Method" when n is a call x.Service.Method(…)
// of a method of one of client-go's services.
func serviceCall(n ast.Node, services map[string]reflect.Type) (string, bool) {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	inner, ok := sel.X.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	svc, ok := services[inner.Sel.Name]
	if !ok {
		return "", false
	}
	if _, ok := svc.MethodByName(sel.Sel.Name); !ok {
		return "", false
	}
	return inner.Sel.Name + "." + sel.Sel.Name, true
}
