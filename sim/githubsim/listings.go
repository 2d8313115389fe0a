package githubsim

// The issue, pull request, comment, issue event and review endpoints:
// listings with GitHub's filters, orders and Link paging, and single
// issues with Last-Modified.

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Endpoint names of the issue and pull request listings, for faults and
// call counts.
const (
	EndpointListIssues        = "list_issues"            // GET /repos/{o}/{r}/issues
	EndpointGetIssue          = "get_issue"              // GET /repos/{o}/{r}/issues/{n}
	EndpointListRepoComments  = "list_repo_comments"     // GET /repos/{o}/{r}/issues/comments
	EndpointListIssueComments = "list_issue_comments"    // GET /repos/{o}/{r}/issues/{n}/comments
	EndpointListRepoEvents    = "list_repo_issue_events" // GET /repos/{o}/{r}/issues/events
	EndpointListIssueEvents   = "list_issue_events"      // GET /repos/{o}/{r}/issues/{n}/events
	EndpointListReviews       = "list_reviews"           // GET /repos/{o}/{r}/pulls/{n}/reviews
	EndpointListPulls         = "list_pulls"             // GET /repos/{o}/{r}/pulls
)

// writeObject answers one object with its Last-Modified time.
func writeObject(w http.ResponseWriter, obj map[string]any, modified time.Time) {
	w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	writeJSON(w, http.StatusOK, obj)
}

// withView runs f under the state lock with a view of the path's
// repository, or answers 404.
func (s *Server) withView(w http.ResponseWriter, r *http.Request, f func(v view)) {
	s.withRepo(w, r, func(st *repoState, name string) { f(s.viewOf(r, st, name)) })
}

// withIssue runs f with the issue or pull request the path's {number}
// names, or answers 404.
func (s *Server) withIssue(w http.ResponseWriter, r *http.Request, f func(v view, is *issue)) {
	s.withView(w, r, func(v view) {
		n, err := strconv.Atoi(r.PathValue("number"))
		is := v.st.issues[n]
		if err != nil || is == nil {
			notFound(w)
			return
		}
		f(v, is)
	})
}

// writeList answers the request's page of items, rendered by render.
func writeList[T any](w http.ResponseWriter, r *http.Request, items []T, render func(T) map[string]any) {
	out := []map[string]any{}
	for _, it := range paginate(w, r, items) {
		out = append(out, render(it))
	}
	writeJSON(w, http.StatusOK, out)
}

// hasLabels reports whether is carries every label of the comma-separated
// list (case-insensitive).
func hasLabels(is *issue, list string) bool {
	for _, want := range strings.Split(list, ",") {
		want = strings.TrimSpace(want)
		if want != "" && !slices.ContainsFunc(is.Labels, func(l string) bool { return strings.EqualFold(l, want) }) {
			return false
		}
	}
	return true
}

// issueKey is the sort key of is for sort (created, updated, comments,
// popularity, long-running), ties broken by number.
func issueKey(sort string) func(is *issue) (int64, int64) {
	return func(is *issue) (int64, int64) {
		switch sort {
		case "updated":
			return is.UpdatedAt.Unix(), int64(is.Number)
		case "comments", "popularity":
			return int64(is.Comments), int64(is.Number)
		}
		return is.CreatedAt.Unix(), int64(is.Number)
	}
}

func (s *Server) handleListIssues(w http.ResponseWriter, r *http.Request) {
	s.withView(w, r, func(v view) {
		q := r.URL.Query()
		qq, err := readQuery(q, "Issue", "open", true, "created", "updated", "comments")
		if err != nil {
			writeQueryError(w, err)
			return
		}
		var match []*issue
		for _, is := range v.st.sortedIssues() {
			if qq.keepState(is.State) && qq.after(is.UpdatedAt) && hasLabels(is, q.Get("labels")) &&
				(q.Get("creator") == "" || strings.EqualFold(q.Get("creator"), is.Author)) {
				match = append(match, is)
			}
		}
		order(match, qq.desc, issueKey(qq.sort))
		writeList(w, r, match, v.issue)
	})
}

func (s *Server) handleGetIssue(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(v view, is *issue) { writeObject(w, v.issue(is), is.UpdatedAt) })
}

func (s *Server) handlePulls(w http.ResponseWriter, r *http.Request) {
	s.withView(w, r, func(v view) {
		q := r.URL.Query()
		sort := q.Get("sort")
		qq, err := readQuery(q, "PullRequest", "open", sort == "" || sort == "created",
			"created", "updated", "popularity", "long-running")
		if err != nil {
			writeQueryError(w, err)
			return
		}
		var match []*issue
		for _, is := range v.st.sortedIssues() {
			if is.Pull != nil && qq.keepState(is.State) {
				match = append(match, is)
			}
		}
		order(match, qq.desc, issueKey(qq.sort))
		writeList(w, r, match, v.pull)
	})
}

// listComments answers the comments that keep accepts and that were
// updated at or after since.
func listComments(w http.ResponseWriter, r *http.Request, v view, qq query, keep func(c *comment) bool) {
	var match []*comment
	for _, c := range v.st.comments {
		if keep(c) && qq.after(c.UpdatedAt) {
			match = append(match, c)
		}
	}
	order(match, qq.desc, func(c *comment) (int64, int64) {
		switch {
		case !qq.sortGiven:
			return c.ID, 0
		case qq.sort == "updated":
			return c.UpdatedAt.Unix(), c.ID
		}
		return c.CreatedAt.Unix(), c.ID
	})
	writeList(w, r, match, v.comment)
}

func (s *Server) handleRepoComments(w http.ResponseWriter, r *http.Request) {
	s.withView(w, r, func(v view) {
		qq, err := readQuery(r.URL.Query(), "IssueComment", "", true, "created", "updated")
		if err != nil {
			writeQueryError(w, err)
			return
		}
		qq.desc = qq.desc && qq.sortGiven // by ascending id unless sorted
		listComments(w, r, v, qq, func(*comment) bool { return true })
	})
}

func (s *Server) handleIssueComments(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(v view, is *issue) {
		qq, err := readQuery(r.URL.Query(), "IssueComment", "", false)
		if err != nil {
			writeQueryError(w, err)
			return
		}
		qq.desc = false
		listComments(w, r, v, qq, func(c *comment) bool { return c.Number == is.Number })
	})
}

func (s *Server) handleRepoEvents(w http.ResponseWriter, r *http.Request) {
	s.withView(w, r, func(v view) {
		events := slices.Clone(v.st.events)
		slices.Reverse(events) // newest first
		writeList(w, r, events, func(e *issueEvent) map[string]any { return v.event(e, true) })
	})
}

func (s *Server) handleIssueEvents(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(v view, is *issue) {
		var events []*issueEvent
		for _, e := range v.st.events {
			if e.Number == is.Number {
				events = append(events, e)
			}
		}
		writeList(w, r, events, func(e *issueEvent) map[string]any { return v.event(e, false) })
	})
}

func (s *Server) handleReviews(w http.ResponseWriter, r *http.Request) {
	s.withIssue(w, r, func(v view, is *issue) {
		if is.Pull == nil {
			notFound(w)
			return
		}
		var reviews []*review
		for _, rv := range v.st.reviews {
			if rv.Number == is.Number {
				reviews = append(reviews, rv)
			}
		}
		writeList(w, r, reviews, v.review)
	})
}
