package jirasim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Seed is a JSON world description for `fullsend sim --jira --seed FILE`
// (format documented in docs/jira.md). Unknown keys are errors.
type Seed struct {
	Myself   string        `json:"myself"`
	Projects []SeedProject `json:"projects"`
	Statuses []SeedStatus  `json:"statuses"`
	Users    []User        `json:"users"`
	Roles    []SeedRole    `json:"roles"`
	Issues   []SeedIssue   `json:"issues"`
}

// SeedProject declares a project.
type SeedProject struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// SeedStatus declares an extra workflow status.
type SeedStatus struct {
	Name     string `json:"name"`
	Category string `json:"category"` // new, indeterminate or done
}

// SeedRole puts an account into a project role.
type SeedRole struct {
	Project   string `json:"project"`
	Role      string `json:"role"`
	AccountID string `json:"accountId"`
}

// SeedIssue declares an issue with its comments and properties.
type SeedIssue struct {
	Project     string                     `json:"project"`
	Summary     string                     `json:"summary"`
	Description string                     `json:"description"`
	Labels      []string                   `json:"labels"`
	Status      string                     `json:"status"`
	Reporter    string                     `json:"reporter"`
	Created     time.Time                  `json:"created"`
	Comments    []SeedComment              `json:"comments"`
	Properties  map[string]json.RawMessage `json:"properties"`
}

// SeedComment is a plain-text comment.
type SeedComment struct {
	Author string `json:"author"`
	Text   string `json:"text"`
}

// ParseSeed decodes a seed strictly; errors name the byte offset or item.
func ParseSeed(r io.Reader) (*Seed, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("seed: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sd Seed
	if err := dec.Decode(&sd); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("seed: invalid JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("seed: %s at byte %d: want %s, got %s", te.Field, te.Offset, te.Type, te.Value)
		}
		return nil, fmt.Errorf("seed: %v", err)
	}
	if dec.More() {
		return nil, errors.New("seed: trailing data after the JSON object")
	}
	return &sd, sd.validate()
}

func (sd *Seed) validate() error {
	projects := map[string]bool{}
	for i, p := range sd.Projects {
		if !validProjectKey(p.Key) {
			return fmt.Errorf("seed projects[%d]: invalid key %q", i, p.Key)
		}
		projects[p.Key] = true
	}
	statuses := map[string]bool{"to do": true, "in progress": true, "done": true}
	for i, st := range sd.Statuses {
		if _, ok := categories[st.Category]; !ok || st.Name == "" {
			return fmt.Errorf("seed statuses[%d]: want a name and category new, indeterminate or done", i)
		}
		statuses[lower(st.Name)] = true
	}
	for i, u := range sd.Users {
		if u.AccountID == "" {
			return fmt.Errorf("seed users[%d]: missing accountId", i)
		}
	}
	for i, r := range sd.Roles {
		if !projects[r.Project] || r.Role == "" || r.AccountID == "" {
			return fmt.Errorf("seed roles[%d]: want a declared project, a role and an accountId", i)
		}
	}
	for i, is := range sd.Issues {
		if !projects[is.Project] {
			return fmt.Errorf("seed issues[%d]: project %q is not declared in projects", i, is.Project)
		}
		if is.Status != "" && !statuses[lower(is.Status)] {
			return fmt.Errorf("seed issues[%d]: unknown status %q", i, is.Status)
		}
		for j, c := range is.Comments {
			if c.Author == "" {
				return fmt.Errorf("seed issues[%d].comments[%d]: missing author", i, j)
			}
		}
		for k, v := range is.Properties {
			if k == "" || !json.Valid(v) {
				return fmt.Errorf("seed issues[%d].properties[%q]: want a key and a JSON value", i, k)
			}
		}
	}
	return nil
}

func lower(s string) string { return strings.ToLower(s) }

// ApplySeed adds a validated seed's world to s; it returns the issue keys
// in seed order.
func (s *Server) ApplySeed(sd *Seed) ([]string, error) {
	if err := sd.validate(); err != nil {
		return nil, err
	}
	for _, p := range sd.Projects {
		s.AddProject(p.Key, p.Name)
	}
	for _, st := range sd.Statuses {
		s.AddStatus(st.Name, st.Category)
	}
	for _, u := range sd.Users {
		s.AddUser(u)
	}
	if sd.Myself != "" {
		s.SetMyself(sd.Myself)
	}
	for _, r := range sd.Roles {
		s.SetRole(r.Project, r.Role, r.AccountID)
	}
	keys := make([]string, 0, len(sd.Issues))
	for _, is := range sd.Issues {
		key := s.AddIssue(IssueSpec{Project: is.Project, Summary: is.Summary, Description: is.Description,
			Labels: is.Labels, Status: is.Status, Reporter: is.Reporter, Created: is.Created})
		for _, c := range is.Comments {
			s.AddComment(key, c.Author, c.Text)
		}
		for k, v := range is.Properties {
			s.SetPropertyDirect(key, k, v)
		}
		keys = append(keys, key)
	}
	return keys, nil
}
