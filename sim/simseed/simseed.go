// Package simseed reads the seed file of `fullsend sim --seed`: one YAML
// or JSON document describing the starting world of the Jira, GitHub and
// GitLab emulators and the credentials each accepts (format:
// docs/simulators.md). It only uses the emulators' public APIs.
package simseed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// DefaultToken is the token every emulator accepts unless the seed names
// another.
const DefaultToken = "sim-token"

// DefaultJiraEmail is the account email printed for Jira Basic auth.
const DefaultJiraEmail = "fullsend-bot@example.com"

// maxSeed bounds the seed file.
const maxSeed = 64 << 20

// File is a decoded seed file. Sections that are absent leave their
// emulator empty (GitLab: one project acme/platform, see gitlabsim).
type File struct {
	Jira   *Jira   `yaml:"jira"`
	GitHub *GitHub `yaml:"github"`
	GitLab *GitLab `yaml:"gitlab"`
}

// Jira is the Jira section: the jirasim seed (docs/jira.md "Seed file")
// plus the credentials.
type Jira struct {
	Email string // JIRA_USER_EMAIL to print (Basic auth user)
	Token string // the only accepted token; "" accepts DefaultToken and any other
	Seed  *jirasim.Seed
}

// GitHub is the GitHub section.
type GitHub struct {
	Token        string       `yaml:"token"` // the only accepted token; "" accepts any
	Repositories []Repository `yaml:"repositories"`
}

// Repository seeds one GitHub repository.
type Repository struct {
	FullName      string         `yaml:"full_name"`
	DefaultBranch string         `yaml:"default_branch"`
	Branches      []string       `yaml:"branches"`
	Workflows     []Workflow     `yaml:"workflows"`
	Collaborators []Collaborator `yaml:"collaborators"`
	Issues        []Issue        `yaml:"issues"`
}

// Issue seeds an issue or pull request (head_repo: "" the repository
// itself, "-" a deleted fork) with its comments, in order.
type Issue struct {
	Title       string    `yaml:"title"`
	Body        string    `yaml:"body"`
	Author      string    `yaml:"author"`
	Labels      []string  `yaml:"labels"`
	PullRequest bool      `yaml:"pull_request"`
	HeadRepo    string    `yaml:"head_repo"`
	Comments    []Comment `yaml:"comments"`
}

// Comment is one comment on a seeded issue.
type Comment struct {
	Author string `yaml:"author"`
	Body   string `yaml:"body"`
}

// Workflow is a workflow file that accepts workflow_dispatch.
type Workflow struct {
	File     string   `yaml:"file"`
	Inputs   []string `yaml:"inputs"`
	Required []string `yaml:"required"`
}

// Collaborator gives a login a role on a repository.
type Collaborator struct {
	Login      string `yaml:"login"`
	Permission string `yaml:"permission"` // admin, maintain, write, triage, read, none
}

// GitLab is the GitLab section.
type GitLab struct {
	Token    string   `yaml:"token"`    // accepted token; "" means DefaultToken
	Projects []string `yaml:"projects"` // project paths; "" means acme/platform
	Refs     []string `yaml:"refs"`     // refs pipelines may run on; "" means main
}

// Parse decodes a seed file strictly (unknown keys are errors). A file
// without any of the jira, github and gitlab keys is read as a Jira seed
// in the older jirasim format.
func Parse(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSeed))
	if err != nil {
		return nil, fmt.Errorf("seed: %v", err)
	}
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("seed: %v", err)
	}
	_, j := top["jira"]
	_, gh := top["github"]
	_, gl := top["gitlab"]
	if !j && !gh && !gl {
		sd, err := jirasim.ParseSeed(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return &File{Jira: &Jira{Seed: sd}}, nil
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("seed: %v", err)
	}
	return &f, f.validate()
}

// UnmarshalYAML reads the Jira section: email and token, and the rest
// handed to jirasim's strict seed parser.
func (j *Jira) UnmarshalYAML(n *yaml.Node) error {
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return err
	}
	for key, dst := range map[string]*string{"email": &j.Email, "token": &j.Token} {
		if v, ok := m[key]; ok {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("line %d: jira.%s: want a string", n.Line, key)
			}
			*dst = s
			delete(m, key)
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("line %d: jira: %v", n.Line, err)
	}
	sd, err := jirasim.ParseSeed(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("line %d: jira %v", n.Line, err)
	}
	j.Seed = sd
	return nil
}

func (f *File) validate() error {
	if f.GitHub == nil {
		return nil
	}
	var errs []error
	seen := map[string]bool{}
	for i, r := range f.GitHub.Repositories {
		where := fmt.Sprintf("seed github.repositories[%d]", i)
		if !validFullName(r.FullName) {
			errs = append(errs, fmt.Errorf("%s: full_name %q: want owner/name", where, r.FullName))
		}
		if seen[r.FullName] {
			errs = append(errs, fmt.Errorf("%s: repository %s is declared twice", where, r.FullName))
		}
		seen[r.FullName] = true
		for j, w := range r.Workflows {
			if w.File == "" {
				errs = append(errs, fmt.Errorf("%s.workflows[%d]: missing file", where, j))
			}
		}
		for j, c := range r.Collaborators {
			if c.Login == "" || c.Permission == "" {
				errs = append(errs, fmt.Errorf("%s.collaborators[%d]: want a login and a permission", where, j))
			}
		}
		for j, is := range r.Issues {
			if is.Author == "" || slices.ContainsFunc(is.Comments, func(c Comment) bool { return c.Author == "" }) {
				errs = append(errs, fmt.Errorf("%s.issues[%d]: the issue and each comment want an author", where, j))
			}
		}
	}
	return errors.Join(errs...)
}

func validFullName(s string) bool {
	owner, name, ok := bytes.Cut([]byte(s), []byte("/"))
	return ok && len(owner) > 0 && len(name) > 0 && !bytes.Contains(name, []byte("/"))
}
