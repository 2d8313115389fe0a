// Package githubsteer is steering on GitHub (docs/steering.md): the
// follow-ups of a run on a GitHub issue or pull request, found from the
// run workflow's runs of its scope (GitHub Actions) or from the records
// another platform gives (Options.Records: the local executor), read
// from the API, mapped by gha-event's own mapping and decided by the
// caller; the record of a delivered one (the tool's reply carrying
// steer.Marker); and the start-up check of a pending run (Consumed).
package githubsteer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// Policy is the retry budget of steering's reads.
var Policy = github.Policy{MaxRetries: 2, BaseBackoff: 500 * time.Millisecond, MaxBackoff: 2 * time.Second,
	MaxWait: 10 * time.Second, Idempotent: true}

// Decide reports whether ev would start (or coalesce into) a run of the
// harness on the scope: the core's decision, made by the caller.
type Decide func(ctx context.Context, ev *event.Event) (bool, error)

// Options configures a Source.
type Options struct {
	Client *gogithub.Client
	Repo   string // owner/name the item lives in
	// RunsRepo is where the run workflow runs (config repo); "" means Repo.
	RunsRepo string
	Number   int // issue or pull request number
	Harness  string
	Scope    string // the run's scope key
	// Own is the active run's change position (its idempotency key).
	Own changepos.Pos
	// Workflow and Since: the run workflow (file or id) whose runs are
	// the records, and the active run's creation (the listing's floor);
	// Records replaces them on another platform.
	Workflow string
	Since    time.Time
	RunID    int64
	Records  func(ctx context.Context) ([]steer.Record, error)
	// TargetRepo is the target repository of the events (config repo);
	// "" means Repo.
	TargetRepo string
	Decide     Decide
	Now        func() time.Time
	// Mapper maps the comments; nil: gha-event's with Client's lookups.
	Mapper *ghaevent.Mapper
	// Run names this run in its records ("driver/id": steer.RunMarker);
	// "" names none.
	Run string
}

// Source is a steer.Source over one GitHub item.
type Source struct {
	o           Options
	owner, name string
	etags       map[string]etagged
	decided     map[int64]decision
}

type etagged struct {
	etag string
	body []byte
}

type decision struct {
	updated time.Time
	steer   bool
	ev      *event.Event
}

// New returns a Source.
func New(o Options) (*Source, error) {
	owner, name, ok := strings.Cut(o.Repo, "/")
	if !ok || o.Number < 1 || o.Client == nil || o.Decide == nil {
		return nil, errors.New("githubsteer: a client, a repository, a number and a decision are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RunsRepo == "" {
		o.RunsRepo = o.Repo
	}
	if o.TargetRepo == "" {
		o.TargetRepo = o.Repo
	}
	if o.Mapper == nil {
		lk := ghaevent.NewLookup(o.Client)
		o.Mapper = ghaevent.NewMapper(ghaevent.Options{Repo: o.TargetRepo, Permissions: lk, Pulls: lk})
	}
	return &Source{o: o, owner: owner, name: name, etags: map[string]etagged{}, decided: map[int64]decision{}}, nil
}

// get reads u (relative to the API base) into v; the answer is asked
// with the ETag of the last one, and a 304 (free on GitHub's rate limit)
// decodes the remembered body.
func (s *Source) get(ctx context.Context, u string, v any) error {
	prev, cached := s.etags[u]
	var raw json.RawMessage
	resp, err := github.Call(ctx, Policy, func(ctx context.Context) (*gogithub.Response, error) {
		req, err := s.o.Client.NewRequest(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if cached {
			req.Header.Set("If-None-Match", prev.etag)
		}
		return s.o.Client.Do(req, &raw)
	})
	var f *github.Failure
	switch {
	case cached && errors.As(err, &f) && f.Status == http.StatusNotModified:
		raw = prev.body
	case err != nil:
		return err
	default:
		if et := resp.Header.Get("ETag"); et != "" {
			s.etags[u] = etagged{etag: et, body: raw}
		}
	}
	return json.Unmarshal(raw, v)
}

// runList is the part of a run list the records need.
type runList struct {
	Runs []struct {
		ID         int64  `json:"id"`
		Title      string `json:"display_title"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
	} `json:"workflow_runs"`
}

// records lists the run workflow's runs created since the active run
// (one page of the newest 100, conditionally) whose title carries a key
// of the scope.
func (s *Source) records(ctx context.Context) ([]steer.Record, error) {
	if s.o.Records != nil {
		return s.o.Records(ctx)
	}
	q := url.Values{"event": {"workflow_dispatch"}, "per_page": {"100"},
		"created": {">=" + s.o.Since.UTC().Truncate(time.Second).Format(time.RFC3339)}}
	u := fmt.Sprintf("repos/%s/actions/workflows/%s/runs?%s", s.o.RunsRepo, url.PathEscape(s.o.Workflow), q.Encode())
	var rl runList
	if err := s.get(ctx, u, &rl); err != nil {
		return nil, fmt.Errorf("githubsteer: listing the runs of %s: %w", s.o.Workflow, err)
	}
	sk := s.o.Scope
	var out []steer.Record
	for _, r := range rl.Runs {
		if r.ID == s.o.RunID {
			continue
		}
		for _, f := range strings.Fields(r.Title) {
			if newest.Scope(f) != sk {
				continue
			}
			if p, ok := newest.Change(f); ok {
				st := ghadispatch.RunState(r.Status, r.Conclusion)
				if st == newest.Waiting || st == newest.Cancelled {
					out = append(out, steer.Record{Pos: p, Waiting: st == newest.Waiting})
				}
			}
		}
	}
	return out, nil
}

// Discover implements steer.Source: nothing more than the run list when
// no run of the scope waits; else the item's comments since the active
// run's change (conditionally), the item, and the mapping and decision
// of each comment not decided before (its actor's role looked up).
func (s *Source) Discover(ctx context.Context) ([]steer.Comment, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return nil, err
	}
	if !waiting(recs, s.o.Own) {
		return nil, nil
	}
	cs, err := s.comments(ctx)
	if err != nil {
		return nil, err
	}
	return steer.Prefix(s.o.Own, recs, cs), nil
}

// waiting reports whether a record after own waits.
func waiting(recs []steer.Record, own changepos.Pos) bool {
	for _, r := range recs {
		if r.Waiting && r.Pos.After(own) {
			return true
		}
	}
	return false
}

// comments reads, maps and decides the item's comments after Own.
func (s *Source) comments(ctx context.Context) ([]steer.Comment, error) {
	var list []*gogithub.IssueComment
	since := s.o.Own.At.UTC().Truncate(time.Second).Format(time.RFC3339)
	u := fmt.Sprintf("repos/%s/%s/issues/%d/comments?per_page=100&since=%s", s.owner, s.name, s.o.Number, url.QueryEscape(since))
	if err := s.get(ctx, u, &list); err != nil {
		return nil, fmt.Errorf("githubsteer: listing the comments of %s#%d: %w", s.o.Repo, s.o.Number, err)
	}
	var issue *gogithub.Issue
	var out []steer.Comment
	for _, c := range list {
		if c == nil || c.ID == nil || c.CreatedAt == nil {
			continue
		}
		p := changepos.Pos{At: c.GetCreatedAt().UTC(), ID: c.GetID()}
		if !p.After(s.o.Own) {
			continue
		}
		d, ok := s.decided[c.GetID()]
		var err error
		if !ok || !d.updated.Equal(c.GetUpdatedAt().Time) {
			if issue == nil {
				is, err := s.issue(ctx)
				if err != nil {
					return nil, err
				}
				issue = is
			}
			if d, err = s.decide(ctx, issue, c); err != nil {
				return nil, err
			}
			s.decided[c.GetID()] = d
		}
		sc := steer.Comment{ID: c.GetID(), Pos: p, Steer: d.steer}
		if d.ev != nil {
			sc.Msg = steer.MessageOf(d.ev, c.GetID(), c.GetHTMLURL(), s.o.Now())
		}
		out = append(out, sc)
	}
	return out, nil
}

func (s *Source) issue(ctx context.Context) (*gogithub.Issue, error) {
	var is gogithub.Issue
	if err := s.get(ctx, fmt.Sprintf("repos/%s/%s/issues/%d", s.owner, s.name, s.o.Number), &is); err != nil {
		return nil, fmt.Errorf("githubsteer: reading %s#%d: %w", s.o.Repo, s.o.Number, err)
	}
	return &is, nil
}

// decide maps comment c as gha-event maps its webhook, and decides it.
// A comment that does not map, or whose decision fails, does not steer.
func (s *Source) decide(ctx context.Context, is *gogithub.Issue, c *gogithub.IssueComment) (decision, error) {
	d := decision{updated: c.GetUpdatedAt().Time}
	repo := &gogithub.Repository{FullName: gogithub.Ptr(s.o.Repo)}
	ev, _, err := s.o.Mapper.Map(ctx, "issue_comment", &gogithub.IssueCommentEvent{Action: gogithub.Ptr("created"),
		Issue: is, Comment: c, Repo: repo, Sender: c.User})
	if err != nil {
		return d, nil
	}
	if feedback.IsOwn(c.GetBody()) {
		ev.Actor.Kind, ev.Actor.Role = event.ActorBot, event.RoleNone
	}
	ok, err := s.o.Decide(ctx, ev)
	if err != nil {
		return d, nil
	}
	d.steer, d.ev = ok, ev
	return d, nil
}

// Record implements steer.Source: the tool's reply on the item carrying
// steer.Marker (feedback.GitHub.Comment: not posted again when a reply
// since the comment already carries it).
func (s *Source) Record(ctx context.Context, c steer.Comment) error {
	w := &feedback.GitHub{Client: s.o.Client}
	t := feedback.Target{System: event.SystemGitHub, Repo: s.o.Repo, Number: int64(s.o.Number), Since: c.Pos.At.Add(-time.Second)}
	_, err := w.Comment(ctx, t, steer.ReplyText(s.o.Harness, c.ID, s.o.Run), steer.Marker(s.o.Harness, c.ID))
	return err
}
