package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ResolveSource is the check Load applies to agents[].source, for callers
// that build a Config by hand: it returns the symlink-resolved path of the
// harness file, or an error saying why the source is not acceptable.
func ResolveSource(dir, source string) (string, error) { return resolveSource(dir, source) }

// resolveSource turns an agents[].source into the path of an existing
// regular file inside dir. The source must be relative, must not contain a
// ".." component, and after resolving symlinks (of dir and of the file)
// must still lie inside dir — so a symlink cannot point a harness outside
// the config directory.
func resolveSource(dir, source string) (string, error) {
	if strings.ContainsRune(source, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	slashed := filepath.ToSlash(source)
	if filepath.IsAbs(source) || strings.HasPrefix(slashed, "/") || filepath.VolumeName(source) != "" {
		return "", fmt.Errorf("%q: must be relative to the config directory, not absolute", source)
	}
	for _, part := range strings.Split(slashed, "/") {
		if part == ".." {
			return "", fmt.Errorf("%q: a \"..\" component is not allowed", source)
		}
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("resolving config directory %q: %w", dir, err)
	}
	joined := filepath.Join(dir, filepath.FromSlash(slashed))
	real, err := filepath.EvalSymlinks(joined)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("harness file %s does not exist", joined)
		}
		return "", fmt.Errorf("harness file %s: %w", joined, err)
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q resolves (through a symlink) to %s, outside the config directory %s", source, real, realDir)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("harness file %s: %w", joined, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("harness file %s is not a regular file", joined)
	}
	return real, nil
}
