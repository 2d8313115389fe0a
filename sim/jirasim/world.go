package jirasim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IssueSpec describes an issue to create. Zero values get defaults:
// Status "To Do", Created now, Reporter the Myself account.
type IssueSpec struct {
	Project     string
	Summary     string
	Description string
	Labels      []string
	Status      string
	Reporter    string // account id
	Created     time.Time
}

// statusDef is a workflow status and its category key.
type statusDef struct {
	id, name, category string
}

// Status categories as Jira numbers them.
var categories = map[string]struct {
	id          int
	name, color string
}{
	"new":           {2, "To Do", "blue-gray"},
	"indeterminate": {4, "In Progress", "yellow"},
	"done":          {3, "Done", "green"},
}

type project struct {
	id        int64
	key, name string
	next      int
	roles     map[string][]string // role name → account ids
}

type comment struct {
	id                   int64
	author, updateAuthor string
	body                 json.RawMessage
	created, updated     time.Time
}

type history struct {
	id      int64
	author  string
	created time.Time
	items   []changeItem
}

// issueState is what search sees of an issue; it is copied into versions
// so that search can lag behind writes.
type issueState struct {
	summary, description string
	labels               []string
	assignee             string    // account id, "" when unassigned
	resolved             time.Time // set while the status is in the done category
	status               *statusDef
	updated              time.Time
	fields               map[string]string
	props                map[string]json.RawMessage
	deleted              bool
}

func (st issueState) clone() issueState {
	c := st
	c.labels = slices.Clone(st.labels)
	c.fields = make(map[string]string, len(st.fields))
	for k, v := range st.fields {
		c.fields[k] = v
	}
	c.props = make(map[string]json.RawMessage, len(st.props))
	for k, v := range st.props {
		c.props[k] = v
	}
	return c
}

type version struct {
	at time.Time
	st issueState
}

type issue struct {
	id                int64
	key               string
	num               int // the number in the key (PROJ-7: 7)
	project           *project
	reporter, creator string
	created           time.Time
	cur               issueState
	versions          []version // oldest first; only kept when SearchLag > 0
	comments          []*comment
	histories         []*history
}

// roleIDs are the global project-role ids.
var defaultRoles = []string{"Administrators", "Developers", "Users"}

func (s *Server) initWorld() {
	s.projects = map[string]*project{}
	s.issues = map[string]*issue{}
	s.users = map[string]User{}
	s.roleIDs = map[string]int64{}
	s.statuses = nil
	s.nextID = 10000
	for i, name := range defaultRoles {
		s.roleIDs[name] = int64(10002 - i)
	}
	s.statuses = []*statusDef{
		{id: "10000", name: "To Do", category: "new"},
		{id: "3", name: "In Progress", category: "indeterminate"},
		{id: "10001", name: "Done", category: "done"},
	}
	s.myself = "557058:fullsend-bot"
	s.users[s.myself] = User{AccountID: s.myself, AccountType: "app", DisplayName: "fullsend bot"}
}

func (s *Server) newID() int64 { s.nextID++; return s.nextID }

func (s *Server) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// AddProject creates a project (idempotent).
func (s *Server) AddProject(key, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addProject(key, name)
}

func (s *Server) addProject(key, name string) *project {
	if !validProjectKey(key) {
		panic(fmt.Sprintf("jirasim: invalid project key %q", key))
	}
	key = strings.ToUpper(key)
	if p, ok := s.projects[key]; ok {
		return p
	}
	if name == "" {
		name = key
	}
	p := &project{id: s.newID(), key: key, name: name, roles: map[string][]string{}}
	s.projects[key] = p
	return p
}

// AddUser registers an account. AccountType defaults to atlassian.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.AccountType == "" {
		u.AccountType = "atlassian"
	}
	if u.DisplayName == "" {
		u.DisplayName = u.AccountID
	}
	s.users[u.AccountID] = u
}

// user returns a registered account, registering unknown ids on the fly.
func (s *Server) user(id string) User {
	u, ok := s.users[id]
	if !ok {
		u = User{AccountID: id, AccountType: "atlassian", DisplayName: id}
		s.users[id] = u
	}
	return u
}

// SetMyself selects the account the API token belongs to.
func (s *Server) SetMyself(accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.myself = accountID
	s.user(accountID)
}

// SetRole adds accountID to roleName in project (creating either).
func (s *Server) SetRole(projectKey, roleName, accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.addProject(projectKey, "")
	if _, ok := s.roleIDs[roleName]; !ok {
		next := int64(0)
		for _, id := range s.roleIDs {
			next = max(next, id)
		}
		s.roleIDs[roleName] = next + 1
	}
	s.user(accountID)
	if !slices.Contains(p.roles[roleName], accountID) {
		p.roles[roleName] = append(p.roles[roleName], accountID)
	}
}

// AddStatus defines a workflow status in category new, indeterminate or done.
func (s *Server) AddStatus(name, category string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := categories[category]; !ok {
		panic(fmt.Sprintf("jirasim: unknown status category %q", category))
	}
	if s.status(name) == nil {
		s.statuses = append(s.statuses, &statusDef{id: strconv.FormatInt(s.newID(), 10), name: name, category: category})
	}
}

// status finds a status by name (any case) or id.
func (s *Server) status(idOrName string) *statusDef {
	for _, st := range s.statuses {
		if st.id == idOrName || strings.EqualFold(st.name, idOrName) {
			return st
		}
	}
	return nil
}

// AddIssue creates an issue and returns its key.
func (s *Server) AddIssue(spec IssueSpec) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.addProject(spec.Project, "")
	st := s.status(spec.Status)
	if spec.Status == "" {
		st = s.statuses[0]
	}
	if st == nil {
		panic(fmt.Sprintf("jirasim: unknown status %q", spec.Status))
	}
	created := spec.Created.UTC().Truncate(time.Millisecond)
	if created.IsZero() {
		created = s.now()
	}
	reporter := spec.Reporter
	if reporter == "" {
		reporter = s.myself
	}
	s.user(reporter)
	p.next++
	is := &issue{
		id: s.newID(), key: fmt.Sprintf("%s-%d", p.key, p.next), num: p.next, project: p,
		reporter: reporter, creator: reporter, created: created,
		cur: issueState{summary: spec.Summary, description: spec.Description, labels: slices.Clone(spec.Labels),
			status: st, updated: created, fields: map[string]string{}, props: map[string]json.RawMessage{}},
	}
	if is.cur.labels == nil {
		is.cur.labels = []string{}
	}
	s.issues[is.key] = is
	s.byID[is.id] = is
	s.touch(is, false)
	return is.key
}

// touch records a new version of is for lagging search; bump also sets
// the updated timestamp.
func (s *Server) touch(is *issue, bump bool) {
	now := s.now()
	if bump {
		is.cur.updated = now
	}
	if s.opts.SearchLag <= 0 {
		return
	}
	is.versions = append(is.versions, version{at: now, st: is.cur.clone()})
	cut := now.Add(-s.opts.SearchLag)
	keep := 0
	for i, v := range is.versions {
		if !v.at.After(cut) {
			keep = i
		}
	}
	is.versions = is.versions[keep:]
}

// searchState is the state search sees at now: current when there is no
// lag or when reconcile is set, otherwise the newest version older than
// the lag. ok is false when search does not see the issue yet.
func (s *Server) searchState(is *issue, reconcile bool) (issueState, bool) {
	if s.opts.SearchLag <= 0 || reconcile {
		return is.cur, !is.cur.deleted
	}
	cut := s.now().Add(-s.opts.SearchLag)
	for i := len(is.versions) - 1; i >= 0; i-- {
		if !is.versions[i].at.After(cut) {
			return is.versions[i].st, !is.versions[i].st.deleted
		}
	}
	return issueState{}, false
}

// mustIssue returns a live issue or panics (world building is test setup).
func (s *Server) mustIssue(key string) *issue {
	is, ok := s.issues[key]
	if !ok || is.cur.deleted {
		panic(fmt.Sprintf("jirasim: no issue %q", key))
	}
	return is
}

// DeleteIssue removes an issue; direct reads answer 404 at once, a lagging
// search still sees it for SearchLag.
func (s *Server) DeleteIssue(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(key)
	is.cur.deleted = true
	s.touch(is, false)
}

// IssueID returns the numeric id of an issue ("" if unknown).
func (s *Server) IssueID(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is, ok := s.issues[key]; ok {
		return strconv.FormatInt(is.id, 10)
	}
	return ""
}
