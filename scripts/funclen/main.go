// Command funclen fails when a function outside tests and emulators is
// longer than the limit (80 lines by default), so long functions are split
// before they land. Usage: go run ./scripts/funclen [-max 80] [dir ...]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	limit := flag.Int("max", 80, "longest function allowed, in lines")
	flag.Parse()
	roots := flag.Args()
	if len(roots) == 0 {
		roots = []string{"cmd", "internal"}
	}
	var long []string
	for _, root := range roots {
		found, err := scan(root, *limit)
		if err != nil {
			fmt.Fprintln(os.Stderr, "funclen:", err)
			os.Exit(2)
		}
		long = append(long, found...)
	}
	for _, l := range long {
		fmt.Println(l)
	}
	if len(long) > 0 {
		fmt.Fprintf(os.Stderr, "funclen: %d functions over %d lines\n", len(long), *limit)
		os.Exit(1)
	}
}

// scan reports every function declared in non-test Go files under root
// whose body spans more than limit lines.
func scan(root string, limit int) ([]string, error) {
	var long []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := end - start + 1; n > limit {
				long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", path, start, fn.Name.Name, n))
			}
		}
		return nil
	})
	return long, err
}
