package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/workflows"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/internal/workflows/gitlabci"
)

// defaultWorkflowDir is where GitHub looks for workflow files.
const defaultWorkflowDir = ".github/workflows"

func newWorkflowsCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflows",
		Short: "Generate and check CI workflows that keep the serialize-and-coalesce rule",
		Example: `  fullsend workflows generate --platform github
  fullsend workflows check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkflowsGenerateCmd(app), newWorkflowsCheckCmd(app))
	return cmd
}

// genFlags are the flags of `workflows generate`.
type genFlags struct {
	platform string
	dir      string
	version  string
	reusable bool
	cron     string
	cronSet  bool // --cron was given
	force    bool
}

func newWorkflowsGenerateCmd(app *App) *cobra.Command {
	var f genFlags
	cmd := &cobra.Command{
		Use:   "generate --platform github|gitlab [--dir D]",
		Short: "Write the poll and run workflows for a CI platform",
		Example: `  fullsend workflows generate --platform github --reusable
  fullsend workflows generate --platform gitlab --dir .`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.cronSet = cmd.Flags().Changed("cron")
			files, dir, err := generateWorkflows(app, f)
			if err != nil {
				return err
			}
			return writeWorkflows(app, dir, files, f.force)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.platform, "platform", "", "CI platform: github or gitlab (required)")
	fl.StringVar(&f.dir, "dir", "", "output directory (default .github/workflows for github)")
	fl.StringVar(&f.version, "fullsend-version", "", "fullsend version the workflows install (default: this binary's version, else latest)")
	fl.BoolVar(&f.reusable, "reusable", false, "github: make fullsend-run.yml call a reusable fullsend-run-reusable.yml")
	fl.StringVar(&f.cron, "cron", ghactions.DefaultCron, "github: poll schedule (five-field cron)")
	fl.BoolVar(&f.force, "force", false, "overwrite existing files that differ")
	completeValues(cmd, "platform", "github", "gitlab")
	return cmd
}

// generateWorkflows renders the files of one platform and says where they
// go. Each platform is one case.
func generateWorkflows(app *App, f genFlags) (map[string][]byte, string, error) {
	switch f.platform {
	case "github":
	case "gitlab":
		if f.reusable || f.cronSet {
			return nil, "", UserError(errors.New("--reusable and --cron apply to --platform github only; on GitLab the poll job runs from a pipeline schedule (see docs/gitlab.md)"))
		}
	case "":
		return nil, "", UserError(errors.New("--platform is required: github or gitlab"))
	default:
		return nil, "", UserError(fmt.Errorf("--platform %q: want github or gitlab", f.platform))
	}
	version := f.version
	if version == "" {
		version = buildVersion()
		if version == "latest" {
			app.Log.Warn("this fullsend binary has no release version; the workflows install @latest — pin one with --fullsend-version")
		}
	}
	if f.platform == "gitlab" {
		files, err := gitlabci.Generate(gitlabci.Options{Version: version})
		if err != nil {
			return nil, "", UserError(err)
		}
		return files, orDefault(f.dir, "."), nil
	}
	files, err := ghactions.Generate(ghactions.Options{Version: version, Cron: f.cron, Reusable: f.reusable})
	if err != nil {
		return nil, "", UserError(err)
	}
	return files, orDefault(f.dir, defaultWorkflowDir), nil
}

// buildVersion is the module version of this binary, or "latest" for a
// development build.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "latest"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// writeWorkflows writes files into dir, in name order. A file that exists
// with other content is kept unless force is set.
func writeWorkflows(app *App, dir string, files map[string][]byte, force bool) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, files[n]) {
			fmt.Fprintf(app.Stdout, "unchanged %s\n", p)
			continue
		}
		if err == nil && !force {
			return UserError(fmt.Errorf("%s exists with other content; use --force to overwrite it", p))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[n]) {
			continue
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		fmt.Fprintf(app.Stdout, "wrote %s\n", p)
	}
	return nil
}

func newWorkflowsCheckCmd(app *App) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "check [--dir D]",
		Short: "Report every job that runs fullsend run without keeping the scheduling rule",
		Long: "Reads every .yml/.yaml file in the directory and reports, as file:line: message,\n" +
			"each job that runs `fullsend run` without a concurrency group containing the\n" +
			"serialization key, with cancel-in-progress true or an expression, or whose\n" +
			"group prefix collides with its caller's. A .gitlab-ci.yml in the directory or\n" +
			"the current directory is checked too (resource_group, interruptible,\n" +
			"workflow:auto_cancel and workflow:name). Exit code 2 when anything is found.",
		Example: `  fullsend workflows check
  fullsend workflows check --dir .github/workflows`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gl, err := checkGitLabCI(dir)
			if err != nil {
				return err
			}
			files, err := readWorkflowDir(dir)
			if err != nil && gl.files == 0 {
				return err
			}
			var rep ghactions.Report
			if err == nil {
				rep = ghactions.Check(files)
			}
			findings := append(rep.Findings, gl.findings...)
			workflows.SortFindings(findings)
			return reportCheck(app, dir, rep.Files+gl.files, rep.Jobs+gl.jobs, findings)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", defaultWorkflowDir, "directory holding the workflow files")
	return cmd
}

// readWorkflowDir reads the .yml and .yaml files directly in dir, sorted.
func readWorkflowDir(dir string) ([]ghactions.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, UserError(fmt.Errorf("workflow directory %s does not exist", dir))
		}
		return nil, UserError(fmt.Errorf("workflow directory %s: %w", dir, err))
	}
	var files []ghactions.File
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yml" && ext != ".yaml") || e.Name() == gitlabci.FileName {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, UserError(fmt.Errorf("read %s: %w", p, err))
		}
		files = append(files, ghactions.File{Name: p, Data: data})
	}
	if len(files) == 0 {
		return nil, UserError(fmt.Errorf("no .yml or .yaml files in %s", dir))
	}
	return files, nil
}

// reportCheck prints findings, or the ok line, and sets the exit code.
func reportCheck(app *App, dir string, nfiles, njobs int, findings []workflows.Finding) error {
	for _, f := range findings {
		fmt.Fprintln(app.Stdout, f.String())
	}
	if len(findings) > 0 {
		return UserError(fmt.Errorf("workflows check: %d finding(s) in %s", len(findings), dir))
	}
	fmt.Fprintf(app.Stdout, "ok: %d files, %d jobs checked\n", nfiles, njobs)
	return nil
}
