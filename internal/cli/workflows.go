package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/workflows"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/internal/workflows/gitlabci"
	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// defaultWorkflowDir is where GitHub looks for workflow files.
const defaultWorkflowDir = ".github/workflows"

func newWorkflowsCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflows",
		Short: "Generate and check CI workflows that keep the serialize-and-coalesce rule",
		Example: `  fullsend workflows generate --platform github
  fullsend workflows check`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkflowsGenerateCmd(app), newWorkflowsCheckCmd(app))
	return cmd
}

// genFlags are the flags of `workflows generate`.
type genFlags struct {
	platform   string
	dir        string
	install    release.Request
	reusable   bool
	githubPoll bool
	cron       string
	force      bool
	image      string
	anyImage   bool // --allow-unpinned-image
	agentToken bool // --gitlab-agent-token
	changed    func(name string) bool
	secrets    []string // github: the secrets the configuration reads (workflowSecrets)
	feedback   bool     // github: the configuration writes feedback reactions (workflowFeedback)
	steer      bool     // a harness steers a running agent (workflowSteer)
}

func newWorkflowsGenerateCmd(app *App) *cobra.Command {
	var f genFlags
	cmd := &cobra.Command{
		Use:   "generate --platform github|gitlab [--dir D] [--version vX.Y.Z | --install source --version vX.Y.Z|SHA]",
		Short: "Write the poll and run workflows for a CI platform",
		Long: "Writes the workflows (GitHub: fullsend-events.yml, fullsend-poll.yml, fullsend-run.yml) or\n" +
			".gitlab-ci.yml (GitLab). Their install step downloads the\n" +
			"fullsend release archive for the runner's OS/arch and refuses it unless its sha256 matches the\n" +
			"release's checksums.txt; no Go toolchain. The release pinned is this binary's own version, or\n" +
			"--version vX.Y.Z. A development build has no release to pin: pass --version vX.Y.Z, or\n" +
			"--install source --version vX.Y.Z|SHA (a full 40-hex commit; branches are refused) to build fullsend\n" +
			"from source in CI (cached).\n" +
			"GitHub: the fullsend steps get GITHUB_TOKEN and the secrets config.yaml (--config-dir) reads:\n" +
			"each jira-poll input's email_env and token_env, and JIRA_BASE_URL when it sets no base_url.\n" +
			"Without a config.yaml they get no Jira secret. The events job (and the poll job with --github-poll)\n" +
			"gets issues: write and pull-requests: write while a harness writes feedback reactions\n" +
			"(report.acknowledge, the default; docs/feedback.md), else read access. The run job gets\n" +
			"actions: read, issues: write and pull-requests: write while a harness steers (steer.enabled;\n" +
			"docs/steering.md), else contents: read alone.",
		Example: `  fullsend workflows generate --platform github --reusable --version v1.2.3
  fullsend workflows generate --platform gitlab --dir . --version v1.2.3`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.changed = cmd.Flags().Changed
			found := true
			if f.platform == "github" {
				var err error
				if f.secrets, found, err = workflowSecrets(app.ConfigDir, cmd.Flag("config-dir").Changed); err != nil {
					return err
				}
				f.feedback = workflowFeedback(app.ConfigDir)
			}
			f.steer = workflowSteer(app.ConfigDir)
			if f.platform == "gitlab" && f.steer && !f.agentToken {
				app.Log.Warn(steerWithoutAgentToken)
			}
			files, dir, err := generateWorkflows(f)
			if err != nil {
				return err
			}
			if err := writeWorkflows(app, dir, files, f.force); err != nil {
				return err
			}
			if !found {
				app.Log.Warn("no configuration found: the workflows pass no Jira secret; generate them again "+
					"once config.yaml has a jira-poll input", "config_dir", app.ConfigDir)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.platform, "platform", "", "CI platform: github or gitlab (required)")
	fl.StringVar(&f.dir, "dir", "", "output directory (default .github/workflows for github, . for gitlab)")
	fl.StringVar(&f.install.Version, "version", "", "fullsend release the workflows install (default: this binary's version)")
	fl.StringVar(&f.install.Version, "fullsend-version", "", "same as --version")
	_ = fl.MarkHidden("fullsend-version")
	fl.StringVar(&f.install.Mode, "install", string(release.Download),
		"release: download the release archive and verify its sha256; source: build with Go in CI")
	fl.StringVar(&f.install.BaseURL, "release-url", "", "base URL of the release assets (default "+release.DefaultBaseURL+")")
	fl.BoolVar(&f.reusable, "reusable", false, "github: make fullsend-run.yml call a reusable fullsend-run-reusable.yml")
	fl.BoolVar(&f.githubPoll, "github-poll", false, "github: give the poll job the read permissions of a github-poll input (issues, pull-requests)")
	fl.StringVar(&f.cron, "cron", ghactions.DefaultCron, "github: poll schedule (five-field cron, at most every 5 minutes)")
	fl.StringVar(&f.image, "image", "", "gitlab: job image, by digest (NAME@sha256:...)")
	fl.BoolVar(&f.anyImage, "allow-unpinned-image", false, "gitlab: accept an --image that is a tag, not a digest")
	fl.BoolVar(&f.agentToken, "gitlab-agent-token", false,
		"gitlab: give the agent job a GITLAB_TOKEN (environment "+gitlabci.AgentEnvironment+") for the early exit of superseded runs")
	fl.BoolVar(&f.force, "force", false, "overwrite existing files that differ")
	completeValues(cmd, "platform", "github", "gitlab")
	return cmd
}

// generateWorkflows renders the files of one platform and says where they
// go. Each platform is one case.
func generateWorkflows(f genFlags) (map[string][]byte, string, error) {
	only := func(platform string, names ...string) error {
		for _, n := range names {
			if f.changed(n) {
				return UserError(fmt.Errorf("--%s applies to --platform %s only", n, platform))
			}
		}
		return nil
	}
	switch f.platform {
	case "github":
		if err := only("gitlab", "image", "allow-unpinned-image", "gitlab-agent-token"); err != nil {
			return nil, "", err
		}
		if err := ghactions.ValidateCron(f.cron); err != nil {
			return nil, "", UserError(fmt.Errorf("--cron: %w", err))
		}
	case "gitlab":
		if f.reusable || f.githubPoll || f.changed("cron") {
			return nil, "", UserError(errors.New("--reusable, --github-poll and --cron apply to --platform github only; on GitLab the poll job runs from a pipeline schedule (see docs/gitlab.md)"))
		}
	case "":
		return nil, "", UserError(errors.New("--platform is required: github or gitlab"))
	default:
		return nil, "", UserError(fmt.Errorf("--platform %q: want github or gitlab", f.platform))
	}
	pin, err := release.Resolve(f.install)
	if err != nil {
		return nil, "", UserError(err)
	}
	var files map[string][]byte
	dir := defaultWorkflowDir
	if f.platform == "gitlab" {
		dir = "."
		files, err = gitlabci.Generate(gitlabci.Options{Install: pin, Image: f.image,
			AllowUnpinnedImage: f.anyImage, AgentToken: f.agentToken})
	} else {
		files, err = ghactions.Generate(ghactions.Options{Install: pin, Cron: f.cron, Reusable: f.reusable, GitHubPoll: f.githubPoll,
			Secrets: f.secrets, Feedback: f.feedback, Steer: f.steer})
	}
	if err != nil {
		return nil, "", UserError(err)
	}
	return files, orDefault(f.dir, dir), nil
}

// workflowSecrets reads the configuration in dir (without the
// environment: a base URL config.yaml leaves out is a secret) and lists
// the secrets the GitHub workflows pass to fullsend. A missing config.yaml
// is found=false and no secrets, unless --config-dir named it (explicit),
// which makes it an error like any configuration problem.
func workflowSecrets(dir string, explicit bool) (secrets []string, found bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, config.FileName)); errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, false, nil
	}
	c, err := config.Load(dir, nil)
	if err != nil {
		return nil, true, err
	}
	return ghactions.SecretsFor(c), true, nil
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
		Short: "Report fullsend jobs that break the scheduling or security rules",
		Long: "Reads every .yml/.yaml file in the directory and reports, as file:line: message,\n" +
			"each job that runs `fullsend run` without a concurrency group containing the\n" +
			"serialization key, with cancel-in-progress true or an expression, or whose\n" +
			"group prefix collides with its caller's; a `fullsend poll` job that can overlap\n" +
			"or cancel; a call of a workflow file that does not exist. In files with a\n" +
			"fullsend job it also reports ${{ }} expressions of untrusted contexts (inputs,\n" +
			"github.event, step outputs, secrets) pasted into run: scripts, with the env:\n" +
			"rewrite; actions not pinned to a 40-hex commit SHA; secrets in job or workflow\n" +
			"env; checkout without persist-credentials: false; secrets: inherit; under\n" +
			"pull_request_target a checkout of the pull request's head or a job reading\n" +
			"secrets without a fork guard; and a `fullsend dispatch` job on pull request\n" +
			"events that does not skip forks.\n" +
			"A .gitlab-ci.yml in the directory or the current directory is checked too\n" +
			"(resource_group fullsend-$FULLSEND_RESOURCE_KEY, interruptible in the job, its\n" +
			"templates, default and rules, workflow:auto_cancel including overrides in\n" +
			"workflow:rules, workflow:name, and a webhook `fullsend dispatch` job that can run\n" +
			"outside trigger pipelines). Files in which no job runs fullsend are listed as not checked,\n" +
			"with the reason; the ok line counts the files and fullsend jobs checked. Exit code 2 when\n" +
			"anything is found, or when no file was checked.",
		Example: `  fullsend workflows check
  fullsend workflows check --dir .github/workflows`,
		Args: noArgs,
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
			skipped := append(rep.Skipped, gl.skipped...)
			return reportCheck(app, dir, rep.Files-len(rep.Skipped)+gl.files, rep.Jobs+gl.jobs, findings, skipped)
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

// reportCheck prints the files not checked and why, then the findings or
// the ok line counting what was checked, and sets the exit code: 2 for
// findings, and for a run that checked nothing.
func reportCheck(app *App, dir string, nfiles, njobs int, findings []workflows.Finding, skipped []workflows.Skipped) error {
	for _, s := range skipped {
		fmt.Fprintln(app.Stdout, s.String())
	}
	for _, f := range findings {
		fmt.Fprintln(app.Stdout, f.String())
	}
	if len(findings) > 0 {
		return UserError(fmt.Errorf("workflows check: %s in %s", english.Count(len(findings), "finding"), dir))
	}
	if nfiles == 0 {
		return UserError(fmt.Errorf("workflows check: nothing checked in %s: no workflow file there has a fullsend job "+
			"(generate them with `fullsend workflows generate`, or pass --dir)", dir))
	}
	fmt.Fprintf(app.Stdout, "ok: %s, %s checked\n", english.Count(nfiles, "file"), english.Count(njobs, "job"))
	return nil
}
