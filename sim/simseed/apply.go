package simseed

import (
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// JiraCredentials returns the email and token to export for the Jira
// emulator: the seed's, else DefaultJiraEmail and DefaultToken.
func (f *File) JiraCredentials() (email, token string) {
	email, token = DefaultJiraEmail, DefaultToken
	if f != nil && f.Jira != nil {
		email = or(f.Jira.Email, email)
		token = or(f.Jira.Token, token)
	}
	return email, token
}

// JiraOptions sets the Jira emulator's required token when the seed names one.
func (f *File) JiraOptions(o jirasim.Options) jirasim.Options {
	if f != nil && f.Jira != nil && f.Jira.Token != "" {
		o.RequiredToken = f.Jira.Token
	}
	return o
}

// ApplyJira adds the Jira world to s and returns the issue keys in order.
func (f *File) ApplyJira(s *jirasim.Server) ([]string, error) {
	if f == nil || f.Jira == nil || f.Jira.Seed == nil {
		return nil, nil
	}
	return s.ApplySeed(f.Jira.Seed)
}

// GitHubToken is the token to export for the GitHub emulator.
func (f *File) GitHubToken() string {
	if f != nil && f.GitHub != nil && f.GitHub.Token != "" {
		return f.GitHub.Token
	}
	return DefaultToken
}

// NewGitHub builds the GitHub emulator with the seeded repositories,
// workflows, collaborators, and issues with their comments.
func (f *File) NewGitHub() (*githubsim.Server, error) {
	var o githubsim.Options
	if f == nil || f.GitHub == nil {
		return githubsim.New(o), nil
	}
	o.Token = f.GitHub.Token
	for _, r := range f.GitHub.Repositories {
		repo := githubsim.Repo{FullName: r.FullName, DefaultBranch: r.DefaultBranch, Branches: r.Branches}
		for _, w := range r.Workflows {
			repo.Workflows = append(repo.Workflows, githubsim.Workflow{File: w.File, Inputs: w.Inputs, Required: w.Required})
		}
		o.Repos = append(o.Repos, repo)
	}
	s := githubsim.New(o)
	for _, r := range f.GitHub.Repositories {
		for _, c := range r.Collaborators {
			if err := s.SetPermission(r.FullName, c.Login, c.Permission); err != nil {
				return nil, err
			}
		}
		for _, is := range r.Issues {
			n, _, err := s.OpenIssue(r.FullName, githubsim.IssueSpec{Title: is.Title, Body: is.Body, Author: is.Author,
				Labels: is.Labels, PullRequest: is.PullRequest, HeadRepo: is.HeadRepo})
			for _, c := range is.Comments {
				if err == nil {
					_, _, err = s.AddComment(r.FullName, n, c.Author, c.Body)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// GitLabOptions returns the GitLab emulator's options from the seed.
func (f *File) GitLabOptions() gitlabsim.Options {
	if f == nil || f.GitLab == nil {
		return gitlabsim.Options{}
	}
	return gitlabsim.Options{Token: f.GitLab.Token, Projects: f.GitLab.Projects, Refs: f.GitLab.Refs}
}

// GitLabToken is the token the GitLab emulator built from GitLabOptions
// accepts.
func (f *File) GitLabToken() string { return gitlabsim.New(f.GitLabOptions()).Token() }

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
