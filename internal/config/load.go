package config

import (
	"errors"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// FileName is the configuration file inside the config directory.
const FileName = "config.yaml"

// Load reads <dir>/config.yaml, applies defaults and resolves values from
// the environment (getenv; nil means no environment):
//
//   - Repo: config, else $GITHUB_REPOSITORY, else $CI_PROJECT_PATH
//     (RepoSource records which);
//   - each jira-poll connection.base_url: config, else $JIRA_BASE_URL;
//   - outputs.gha-dispatch.ref: config, else $GITHUB_REF_NAME;
//   - outputs.gitlab-pipeline.project: config, else Repo.
//
// Command-line flags win over both: a caller applies a flag by overwriting
// the field after Load and re-checking it (CheckRepo, CheckBaseURL).
//
// Every problem is collected and returned together as Errors, each naming
// file:line:col; the returned Config is nil whenever there is a problem.
// Agent sources are checked to exist inside dir; the harness files
// themselves are read by LoadHarness.
func Load(dir string, getenv func(string) string) (*Config, error) {
	c, probs := LoadLenient(dir, getenv)
	if len(probs) > 0 {
		return nil, probs
	}
	return c, nil
}

// LoadLenient is Load for tools that report every problem at once (such
// as `fullsend validate`): it returns the best-effort Config together
// with the problems (sorted by position). Bad values are left at their
// defaults and agents whose source could not be resolved have an empty
// Path. The Config is nil only when config.yaml could not be read.
// Never use a Config that came with problems to start runs.
func LoadLenient(dir string, getenv func(string) string) (*Config, strictyaml.Errors) {
	file := filepath.Join(dir, FileName)
	src, err := strictyaml.ReadFile(file)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, strictyaml.ErrNotFound) {
			msg += "; pass --config-dir DIR (default: .fullsend in the working directory; " +
				"the examples: --config-dir examples/.fullsend)"
		}
		return nil, strictyaml.Errors{{File: file, Msg: msg}}
	}
	return parse(dir, file, src, getenv)
}

// parse decodes src (the contents of file, in config directory dir).
func parse(dir, file string, src []byte, getenv func(string) string) (*Config, strictyaml.Errors) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := Default()
	c.Dir, c.File = dir, file
	w := &configWalk{Decoder: &strictyaml.Decoder{File: file}, c: c, baseURL: map[int]*yaml.Node{}}
	if root := w.ParseDocument(src); root != nil {
		w.root(root)
	}
	w.resolveEnv(getenv)
	w.Problems.Sort()
	return c, w.Problems
}

// resolveEnv fills values from the environment and checks the results,
// naming the variable when a value came from there.
func (w *configWalk) resolveEnv(getenv func(string) string) {
	c := w.c
	switch {
	case c.Repo != "":
		c.RepoSource = "config"
		if err := CheckRepo(c.Repo); err != nil && w.repoPos != nil {
			w.ErrAt(w.repoPos, "%v", err)
		}
	case getenv("GITHUB_REPOSITORY") != "":
		c.Repo, c.RepoSource = getenv("GITHUB_REPOSITORY"), "GITHUB_REPOSITORY"
	case getenv("CI_PROJECT_PATH") != "":
		c.Repo, c.RepoSource = getenv("CI_PROJECT_PATH"), "CI_PROJECT_PATH"
	}
	if c.RepoSource != "" && c.RepoSource != "config" {
		if err := CheckRepo(c.Repo); err != nil {
			w.Problems = append(w.Problems, strictyaml.Problem{File: "$" + c.RepoSource, Msg: err.Error()})
		}
	}
	for i := range c.Poll.InputDrivers {
		conn := &c.Poll.InputDrivers[i].Connection
		if conn.BaseURL != "" {
			if err := CheckBaseURL(conn.BaseURL); err != nil {
				w.ErrAt(w.baseURL[i], "poll.input_drivers[%d].connection.base_url: %v", i, err)
			}
			continue
		}
		for _, name := range baseURLEnv(c.Poll.InputDrivers[i].Type) {
			if env := getenv(name); env != "" {
				conn.BaseURL = env
				if err := CheckBaseURL(env); err != nil {
					w.Problems = append(w.Problems, strictyaml.Problem{File: "$" + name, Msg: err.Error()})
				}
				break
			}
		}
	}
	if c.Outputs.GHADispatch.Ref == "" {
		c.Outputs.GHADispatch.Ref = getenv("GITHUB_REF_NAME")
	}
	if c.Outputs.GitLabPipeline.Project == "" {
		c.Outputs.GitLabPipeline.Project = c.Repo
	}
}

// CheckConnection reports whether the connection can be used: a base URL
// is known (config or $JIRA_BASE_URL) and valid. Load accepts a missing
// base URL so that `fullsend validate` works without the environment;
// the poll driver calls this before connecting.
func (c Connection) CheckConnection() error {
	if c.BaseURL == "" {
		return errors.New("jira-poll: no base URL: set connection.base_url in config.yaml or $JIRA_BASE_URL")
	}
	return CheckBaseURL(c.BaseURL)
}
