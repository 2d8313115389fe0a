package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/harness"
)

// commandWarnings reports, at run.command in each harness file, a program
// that `fullsend run` could not start from here: a path (a name holding
// "/") is looked up relative to the working directory, where agents start
// (docs/runner.md), a bare name on $PATH. Warnings, not errors: CI may
// install the program later.
func commandWarnings(hs []*harness.Harness, getenv func(string) string) config.Errors {
	var warns config.Errors
	for _, h := range hs {
		if len(h.Command) == 0 {
			continue
		}
		if msg := findProgram(h.Command[0], getenv("PATH")); msg != "" {
			warns = append(warns, config.Problem{File: h.File, Line: h.CommandLine, Col: h.CommandCol,
				Msg: "WARNING: run.command: " + msg})
		}
	}
	return warns
}

// findProgram returns why prog cannot be started, or "" when it can.
func findProgram(prog, path string) string {
	if strings.Contains(prog, "/") {
		where := prog
		if !filepath.IsAbs(prog) {
			wd, _ := os.Getwd()
			where = fmt.Sprintf("%s (relative to the working directory %s, where agents start)", prog, wd)
		}
		if err := executable(prog); err != nil {
			return fmt.Sprintf("%s: %s", where, err)
		}
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if executable(filepath.Join(dir, prog)) == nil {
			return ""
		}
	}
	return fmt.Sprintf("%q not found on $PATH", prog)
}

// executable returns nil when p is a regular file with an execute bit.
func executable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("no such file")
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("is a directory")
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("not executable (chmod +x)")
	}
	return nil
}
