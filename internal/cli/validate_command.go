package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// commandWarnings reports, at run.command in each harness file, a program
// that `fullsend run` could not start from here: a path (a name holding
// "/") is looked up relative to the working directory, where agents start
// (docs/runner.md), a bare name on $PATH. Warnings, not errors: CI may
// install the program later.
// When a relative program is missing here but present next to the
// configuration directory, the warning says to run fullsend from there.
func commandWarnings(hs []*harness.Harness, configDir string, getenv func(string) string) strictyaml.Errors {
	var warns strictyaml.Errors
	for _, h := range hs {
		if len(h.Command) == 0 {
			continue
		}
		if msg := findProgram(h.Command[0], getenv("PATH"), filepath.Dir(configDir)); msg != "" {
			warns = append(warns, strictyaml.Problem{File: h.File, Line: h.CommandLine, Col: h.CommandCol,
				Msg: "WARNING: run.command: " + msg})
		}
	}
	return warns
}

// findProgram returns why prog cannot be started, or "" when it can; root
// is the directory holding the configuration directory.
func findProgram(prog, path, root string) string {
	if strings.Contains(prog, "/") {
		err := executable(prog)
		if err == nil {
			return ""
		}
		if filepath.IsAbs(prog) {
			return fmt.Sprintf("%s: %s", prog, err)
		}
		wd, _ := os.Getwd()
		msg := fmt.Sprintf("%s (relative to the working directory %s, where agents start): %s", prog, wd, err)
		if abs, _ := filepath.Abs(root); abs != wd && executable(filepath.Join(root, prog)) == nil {
			msg += fmt.Sprintf("; it exists in %s: run fullsend from there", root)
		}
		return msg
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
