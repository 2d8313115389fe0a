package feedback

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// DefaultTimeout bounds the feedback writes of one call (Options.Timeout).
const DefaultTimeout = 10 * time.Second

// maxReason bounds the reason quoted in a comment, in code points.
const maxReason = 300

// Options configure a Notifier.
type Options struct {
	Writer Writer // the platform's writes; nil: no feedback at all
	// System is the writer's platform (the platform label).
	System    string
	Harnesses *harness.Registry // their report: settings
	Metrics   *Metrics          // nil: not counted
	Log       *slog.Logger
	// Timeout bounds all the writes of one call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Notifier writes the feedback of one platform. A nil *Notifier writes
// nothing; its methods are safe for concurrent use.
type Notifier struct{ o Options }

// New returns a Notifier, or nil when o has no Writer.
func New(o Options) *Notifier {
	if o.Writer == nil {
		return nil
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Harnesses == nil {
		o.Harnesses = harness.NewRegistry()
	}
	return &Notifier{o: o}
}

// Started is a run that was dispatched: its harness, the event that
// started it, and when the change happened (zero when unknown).
type Started struct {
	Harness string
	Event   *event.Event
	At      time.Time
}

// Acknowledge acknowledges the runs started by a command, once per
// element however many harnesses it started: an eyes reaction on GitHub
// and GitLab, a marked reply on Jira when the harness says
// report.jira: comment. Call it after the dispatch succeeded.
func (n *Notifier) Acknowledge(ctx context.Context, runs []Started) {
	if n == nil || len(runs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	done := map[string]bool{}
	for _, r := range runs {
		h, ok := n.o.Harnesses.Get(r.Harness)
		if !ok || !h.Report.Acknowledge || r.Event == nil || !Acknowledged(r.Event) {
			continue
		}
		t, ok := TargetOf(r.Event)
		if !ok || done[t.String()] {
			continue
		}
		if t.System == event.SystemJira {
			// Jira: comments only (a label has nowhere to reply), and only
			// when the harness asks for a reply.
			if h.Report.Jira != harness.ReportComment || t.Comment == 0 {
				continue
			}
			done[t.String()] = true
			t.Since = r.At
			change := "comment/" + r.Event.Transition.Comment.ID
			n.comment(ctx, KindAcknowledge, t, "fullsend received this request; a run started.", Marker(KindAcknowledge, change))
			continue
		}
		done[t.String()] = true
		n.react(ctx, KindAcknowledge, t, Eyes)
	}
}

// Refuse answers a command from a person below the required role (the
// caller passes only events the gate denied; bots, the tool's own
// account among them, never get one) with a neutral reaction when some
// harness says report.denied: reaction. It reveals nothing of the
// configuration: no comment, no reason. Jira, without reactions, gets
// nothing.
func (n *Notifier) Refuse(ctx context.Context, ev *event.Event) {
	if n == nil || ev == nil || ev.Actor.Kind != event.ActorHuman || ev.Transition.Comment == nil ||
		ev.Transition.Comment.Command == "" || !n.any(func(r harness.Report) bool {
		return r.Denied == harness.ReportReaction
	}) {
		return
	}
	t, ok := TargetOf(ev)
	if !ok || t.System == event.SystemJira || t.Comment == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	n.react(ctx, KindRefuse, t, Confused)
}

// Notice is a change given up on: the item it happened on (the Jira key
// for a Jira item), the harness ("" when no harness saw it), the change's
// id, when it happened, why, and the event when there is one.
type Notice struct {
	Item, Harness, Change string
	At                    time.Time
	Reason                string
	Event                 *event.Event
}

// Unhonoured posts one comment on the item saying that a change was not
// honoured, why and how to retry, unless the harness says
// report.unhonoured: none (for a change no harness saw: unless every
// harness says so). The comment is marked with the change, and not posted
// again when a comment carrying the mark exists. It is what the poll
// cycle calls when it quarantines a change, and what any path that gives
// up on a change calls.
func (n *Notifier) Unhonoured(ctx context.Context, no Notice) {
	if n == nil {
		return
	}
	wants := func(r harness.Report) bool { return r.Unhonoured != harness.ReportNone }
	if h, ok := n.o.Harnesses.Get(no.Harness); ok && !wants(h.Report) || !ok && !n.any(wants) {
		return
	}
	t := Target{System: n.o.System, Key: no.Item}
	if no.Event != nil {
		if et, ok := TargetOf(no.Event); ok {
			t = et.Item()
		}
	}
	if t.System != event.SystemJira && t.Number == 0 || t.System == event.SystemJira && t.Key == "" {
		n.o.Log.Warn("feedback: no item to say a change was not honoured on", "item", no.Item, "change", no.Change)
		return
	}
	t.Since = no.At
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	n.comment(ctx, KindUnhonoured, t, unhonouredText(no), Marker(KindUnhonoured, no.Change))
}

// unhonouredText is the comment: what was not done, the reason (redacted
// and short), and how to retry.
func unhonouredText(no Notice) string {
	reason := strings.Join(strings.Fields(redact.String(no.Reason)), " ")
	if utf8.RuneCountInString(reason) > maxReason {
		reason = string([]rune(reason)[:maxReason]) + "…"
	}
	what := "this request"
	if no.Harness != "" {
		what = "this request for " + no.Harness
	}
	return "fullsend could not start a run for " + what + " and has set it aside: " + reason +
		"\nTo retry, fix the cause and post the command again (a new comment is a new request)."
}

// any reports whether some enabled harness's report: satisfies f.
func (n *Notifier) any(f func(harness.Report) bool) bool {
	for _, h := range n.o.Harnesses.All() {
		if f(h.Report) {
			return true
		}
	}
	return false
}

func (n *Notifier) react(ctx context.Context, kind string, t Target, content string) {
	existing, err := n.o.Writer.React(ctx, t, content)
	n.record(kind, t, existing, err)
}

func (n *Notifier) comment(ctx context.Context, kind string, t Target, text, marker string) {
	existing, err := n.o.Writer.Comment(ctx, t, text+"\n"+marker, marker)
	n.record(kind, t, existing, err)
}

// record logs and counts one write.
func (n *Notifier) record(kind string, t Target, existing bool, err error) {
	result := ResultCreated
	switch {
	case err != nil:
		result = ResultFailed
		n.o.Log.Warn("feedback not written; the run is unaffected", "kind", kind, "target", t.String(),
			"error", redact.String(err.Error()))
	case existing:
		result = ResultExisting
		n.o.Log.Debug("feedback already there", "kind", kind, "target", t.String())
	default:
		n.o.Log.Info("feedback written", "kind", kind, "target", t.String())
	}
	n.o.Metrics.Count(t.System, kind, result)
}

// Wanted reports whether any of the enabled harnesses hs writes reactions
// on GitHub or GitLab items (report.acknowledge, or report.denied:
// reaction): the workflows then need write access to issues and pull
// requests.
func Wanted(hs []*harness.Harness) bool {
	for _, h := range hs {
		if h.Enabled && (h.Report.Acknowledge || h.Report.Denied == harness.ReportReaction) {
			return true
		}
	}
	return false
}
