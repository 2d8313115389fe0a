package githubsim

// Issues, pull requests, comments, label events and reviews, changed
// through the Go API below. Every change stamps its times from the
// emulator clock (second precision, as GitHub's timestamps), bumps the
// issue's updated_at and returns the webhook delivery GitHub Actions would
// hand a workflow for it.

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// IssueSpec describes an issue or pull request to open.
type IssueSpec struct {
	Title, Body, Author string
	Labels              []string
	// PullRequest opens a pull request (also listed by the issues API, with
	// a "pull_request" key).
	PullRequest bool
	// HeadRepo is a pull request's head repository "owner/name": "" is the
	// base repository, "-" a deleted fork (null head repository).
	HeadRepo string
}

// tracker is one repository's issues and pull requests (one number
// sequence), comments, issue events and reviews.
type tracker struct {
	issues   map[int]*issue
	next     int // the next issue or pull request number
	comments []*comment
	events   []*issueEvent
	reviews  []*review
}

type issue struct {
	ID                             int64
	Number                         int
	Title, Body, Author            string
	Labels                         []string
	Assignees                      []string // logins (SetAssignees)
	State                          string   // open | closed
	CreatedAt, UpdatedAt, ClosedAt time.Time
	Comments                       int
	Pull                           *PullRequest // nil for an issue
}

type comment struct {
	ID                   int64
	Number               int
	Author, Body         string
	CreatedAt, UpdatedAt time.Time
}

type issueEvent struct {
	ID           int64
	Number       int
	Event, Actor string
	Label        string // labeled and unlabeled only
	CreatedAt    time.Time
}

type review struct {
	ID                int64
	Number            int
	User, State, Body string
	SubmittedAt       time.Time
	CommitID          string
}

func (t *tracker) insert(is *issue) {
	t.issues[is.Number] = is
	t.next = max(t.next, is.Number+1)
}

// sortedIssues lists the issues and pull requests by number.
func (t *tracker) sortedIssues() []*issue {
	out := make([]*issue, 0, len(t.issues))
	for _, is := range t.issues {
		out = append(out, is)
	}
	slices.SortFunc(out, func(a, b *issue) int { return a.Number - b.Number })
	return out
}

// stamp is the emulator clock at GitHub's precision: every timestamp it
// serves (issues, comments, issue events, reviews, reactions, workflow
// runs) is a whole second, as GitHub's ISO 8601 times are, so that
// changes made during one second share their time and differ by id only
// (a test puts several into one second by advancing its clock less).
func (s *Server) stamp() time.Time { return s.now().UTC().Truncate(time.Second) }

// newID hands out ids for issues, comments, events and reviews; the
// caller holds s.mu.
func (s *Server) newID() int64 {
	s.objID++
	return s.objID
}

// fakeSHA is a stable commit id for text.
func fakeSHA(text string) string {
	sum := sha1.Sum([]byte(text))
	return hex.EncodeToString(sum[:])
}

// OpenIssue opens an issue (or, with spec.PullRequest, a pull request) and
// returns its number and the "issues" (or "pull_request") "opened"
// delivery.
func (s *Server) OpenIssue(repo string, spec IssueSpec) (number int, d Delivery, err error) {
	err = s.editRepo(repo, func(st *repoState) {
		now := s.stamp()
		is := &issue{ID: s.newID(), Number: st.next, Title: spec.Title, Body: spec.Body, Author: spec.Author,
			Labels: slices.Clone(spec.Labels), State: "open", CreatedAt: now, UpdatedAt: now}
		if spec.PullRequest {
			head := spec.HeadRepo
			switch head {
			case "":
				head = repo
			case "-":
				head = ""
			}
			is.Pull = &PullRequest{Number: is.Number, Author: spec.Author, HeadRepo: head,
				HeadRef: fmt.Sprintf("change-%d", is.Number), HeadSHA: fakeSHA(fmt.Sprintf("%s#%d", repo, is.Number)),
				BaseRef: st.DefaultBranch, State: "open"}
		}
		st.insert(is)
		number = is.Number
		d = s.issueDelivery(st, repo, is, "opened", spec.Author, "")
	})
	return number, d, err
}

// editIssue runs edit on issue number of repo with s.mu held, at now,
// which is already the issue's updated_at (restored when edit fails).
func (s *Server) editIssue(repo string, number int, edit func(st *repoState, is *issue, now time.Time) error) error {
	var inner error
	err := s.editRepo(repo, func(st *repoState) {
		is := st.issues[number]
		if is == nil {
			inner = fmt.Errorf("githubsim: no issue or pull request %s#%d", repo, number)
			return
		}
		now, was := s.stamp(), is.UpdatedAt
		is.UpdatedAt = now
		if inner = edit(st, is, now); inner != nil {
			is.UpdatedAt = was
		}
	})
	if err != nil {
		return err
	}
	return inner
}

// AddComment comments on an issue or pull request and returns the
// comment's id and the "issue_comment" "created" delivery.
func (s *Server) AddComment(repo string, number int, author, body string) (id int64, d Delivery, err error) {
	err = s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		c := &comment{ID: s.newID(), Number: number, Author: author, Body: body, CreatedAt: now, UpdatedAt: now}
		st.comments = append(st.comments, c)
		is.Comments++
		id = c.ID
		d = s.commentDelivery(st, repo, is, c)
		return nil
	})
	return id, d, err
}

// SetLabel adds (add true) or removes label on an issue or pull request,
// records the labeled or unlabeled issue event, and returns the "issues"
// (or "pull_request") delivery. Adding a label the issue has, or removing
// one it has not, is an error.
func (s *Server) SetLabel(repo string, number int, actor, label string, add bool) (d Delivery, err error) {
	err = s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		i := slices.IndexFunc(is.Labels, func(l string) bool { return strings.EqualFold(l, label) })
		action := "labeled"
		switch {
		case add && i >= 0:
			return fmt.Errorf("githubsim: %s#%d already has label %q", repo, number, label)
		case add:
			is.Labels = append(is.Labels, label)
		case i < 0:
			return fmt.Errorf("githubsim: %s#%d has no label %q", repo, number, label)
		default:
			label, action = is.Labels[i], "unlabeled"
			is.Labels = slices.Delete(is.Labels, i, i+1)
		}
		st.events = append(st.events, &issueEvent{ID: s.newID(), Number: number, Event: action, Actor: actor, Label: label, CreatedAt: now})
		d = s.issueDelivery(st, repo, is, action, actor, label)
		return nil
	})
	return d, err
}

// SetIssueState closes (open false) or reopens an issue or pull request,
// records the closed or reopened issue event, and returns the "issues" (or
// "pull_request") delivery.
func (s *Server) SetIssueState(repo string, number int, actor string, open bool) (d Delivery, err error) {
	err = s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		state, action := "closed", "closed"
		if open {
			state, action = "open", "reopened"
		}
		if is.State == state {
			return fmt.Errorf("githubsim: %s#%d is already %s", repo, number, state)
		}
		is.State, is.ClosedAt = state, time.Time{}
		if !open {
			is.ClosedAt = now
		}
		if is.Pull != nil {
			is.Pull.State = state
		}
		st.events = append(st.events, &issueEvent{ID: s.newID(), Number: number, Event: action, Actor: actor, CreatedAt: now})
		d = s.issueDelivery(st, repo, is, action, actor, "")
		return nil
	})
	return d, err
}

// SubmitReview submits a review (state APPROVED, CHANGES_REQUESTED or
// COMMENTED) on a pull request and returns the review's id and the
// "pull_request_review" "submitted" delivery.
func (s *Server) SubmitReview(repo string, number int, reviewer, state, body string) (id int64, d Delivery, err error) {
	switch state {
	case "APPROVED", "CHANGES_REQUESTED", "COMMENTED":
	default:
		return 0, Delivery{}, fmt.Errorf("githubsim: review state %q: want APPROVED, CHANGES_REQUESTED or COMMENTED", state)
	}
	err = s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		if is.Pull == nil {
			return fmt.Errorf("githubsim: %s#%d is not a pull request", repo, number)
		}
		rv := &review{ID: s.newID(), Number: number, User: reviewer, State: state, Body: body, SubmittedAt: now, CommitID: is.Pull.HeadSHA}
		st.reviews = append(st.reviews, rv)
		id = rv.ID
		d = s.reviewDelivery(st, repo, is, rv)
		return nil
	})
	return id, d, err
}
