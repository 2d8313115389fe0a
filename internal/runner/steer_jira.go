package runner

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// jira is steering on a Jira issue under its poll lock: pollers skip the
// issue while the run holds the lock, so no run is pending; the issue's
// comments after the run started are its follow-ups, and the tool's
// reply carrying steer.Marker is the record the next poller's detection
// honours (jirapoll's markConsumed).
func (e steerEnv) jira(ctx context.Context) (steerCheck, error) {
	if e.spec.Locker == nil || e.ev.Entity.Key == "" {
		e.log.Info("steer: a Jira run without a poll lock has nothing pending; the run goes on without steering")
		return steerCheck{}, nil
	}
	i, _ := e.cfg.Poll.LockInput()
	id := e.cfg.Poll.InputDrivers[i]
	opts, err := config.JiraOptions(id, e.r.Getenv, e.log)
	if err != nil {
		return steerCheck{}, err
	}
	clock := trackerclock.New(opts.Now)
	opts.Clock = clock
	client, err := jira.New(opts)
	if err != nil {
		return steerCheck{}, err
	}
	me, err := client.Myself(ctx)
	if err != nil {
		return steerCheck{}, err
	}
	if e.r.JiraFollowUps == nil {
		e.log.Info("steer: this build reads no Jira follow-ups; the run goes on without steering")
		return steerCheck{}, nil
	}
	since := e.jiraSince(clock.Now)
	follow, err := e.r.JiraFollowUps(JiraIssue{Client: client, Input: id, Repo: e.cfg.Repo, Now: clock.Now, Log: e.log,
		Key: e.ev.Entity.Key, Since: since})
	if err != nil {
		return steerCheck{}, err
	}
	decide, err := e.decider(me.AccountID)
	if err != nil {
		return steerCheck{}, err
	}
	src := &jiraSource{follow: follow, client: client, key: e.ev.Entity.Key, harness: e.h.Name,
		site: id.Connection.BaseURL, since: since, now: clock.Now, decide: decide, decided: map[int64]bool{}, run: e.runName()}
	return steerCheck{Spec: &SteerSpec{Source: src, Now: clock.Now}}, nil
}

// jiraSince is where the run's follow-ups start: its own change, the
// position its idempotency key names (the poller's, carried by the
// work_item input or FULLSEND_IDEMPOTENCY_KEY: on Jira's clock, and the
// newest change of the issue the poller dispatched to this harness, so
// every comment after it that steers is one the next cycle would
// dispatch); without one (a scheduled run), the run's start on Jira's
// clock.
func (e steerEnv) jiraSince(now func() time.Time) time.Time {
	key := e.getenv("FULLSEND_IDEMPOTENCY_KEY")
	if key == "" {
		var wi plan.WorkItem
		if json.Unmarshal([]byte(e.getenv(plan.EnvVar(plan.InWorkItem))), &wi) == nil {
			key = wi.IdempotencyKey
		}
	}
	if p, ok := newest.Change(key); ok && newest.Scope(key) == e.key {
		return p.At
	}
	return now()
}

// JiraIssue is what a reader of one Jira issue's follow-ups is built
// from: the run's Jira client and its jira-poll input, the target repo,
// Jira's clock, the issue and the run's change (Since).
type JiraIssue struct {
	Client *jira.Client
	Input  config.InputDriver
	Repo   string
	Now    func() time.Time
	Log    *slog.Logger
	Key    string
	Since  time.Time
}

// FollowUpReader reads one Jira issue's follow-ups: the comments after
// the run's change, mapped as a poll cycle maps them, each with the
// harnesses the tool's replies record it as delivered to
// (poll.Change.Consumed). It only reads.
type FollowUpReader interface {
	Read(ctx context.Context) ([]poll.Change, error)
}

// jiraSource is a steer.Source over one Jira issue.
type jiraSource struct {
	follow  FollowUpReader
	client  *jira.Client
	key     string
	harness string
	site    string
	since   time.Time
	now     func() time.Time
	decide  func(context.Context, *event.Event) (bool, error)
	decided map[int64]bool
	run     string // this run in its records (steer.RunMarker)
}

// Discover implements steer.Source: the comments created after the run
// started, mapped as a cycle maps them and decided, less those already
// recorded for this harness (steer.After).
func (s *jiraSource) Discover(ctx context.Context) ([]steer.Comment, error) {
	changes, err := s.follow.Read(ctx)
	if err != nil {
		return nil, err
	}
	var cs []steer.Comment
	for _, ch := range changes {
		ev := ch.Event
		cm := ev.Transition.Comment
		if cm == nil || ev.Source.RawAction != "created" {
			continue
		}
		id, err := strconv.ParseInt(cm.ID, 10, 64)
		if err != nil || slices.Contains(ch.Consumed, s.harness) {
			continue
		}
		ok, seen := s.decided[id]
		if !seen {
			if ok, err = s.decide(ctx, ev); err != nil {
				ok = false
			}
			s.decided[id] = ok
		}
		url := s.site + "/browse/" + s.key + "?focusedCommentId=" + cm.ID
		cs = append(cs, steer.Comment{ID: id, Pos: changepos.Pos{At: ch.At, ID: id}, Steer: ok,
			Msg: steer.MessageOf(ev, id, url, s.now())})
	}
	return steer.After(changepos.At(s.since), cs), nil
}

// Record implements steer.Source: the tool's reply carrying
// steer.Marker, posted unless one since the comment already carries it.
func (s *jiraSource) Record(ctx context.Context, c steer.Comment) error {
	w := &feedback.Jira{Client: s.client}
	_, err := w.Comment(ctx, feedback.Target{System: event.SystemJira, Key: s.key, Since: c.Pos.At},
		steer.ReplyText(s.harness, c.ID, s.run), steer.Marker(s.harness, c.ID))
	return err
}
