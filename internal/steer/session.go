package steer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Source is what a session needs from a platform: the follow-ups that
// may be delivered now (Prefix or After applied, each comment read from
// the platform and decided) and the record of one delivered.
type Source interface {
	Discover(ctx context.Context) ([]Comment, error)
	Record(ctx context.Context, c Comment) error
}

// Kill points a test may stop a session at (Session.Kill), in the order
// a follow-up passes them.
const (
	KillBeforeOffer  = "before-offer"
	KillAfterOffer   = "after-offer"
	KillBeforeRecord = "before-record"
	KillAfterRecord  = "after-record"
	// KillBeforeEnd is the runner's, after the records and before the
	// run ends (its receipt, the lock's release, its exit).
	KillBeforeEnd = "before-end"
)

// ErrKilled is what a session stopped at a kill point returns.
var ErrKilled = errors.New("steer: session killed (test)")

// Session is one run's steering: Tick discovers and offers, Finish
// records what was delivered. Safe for one Tick/Run goroutine and one
// Finish after it.
type Session struct {
	Source  Source
	Mailbox *Mailbox
	Limits  Limits
	// Ordered: record only a prefix of the final discovery (Prefix's
	// sources, whose pending run gives up a prefix); false records every
	// acknowledged follow-up (After's).
	Ordered bool
	Now     func() time.Time // the platform's clock
	Log     *slog.Logger
	// Kill, when set, is asked at each kill point; true stops the session
	// there as a SIGKILL of the runner would (tests).
	Kill func(point string) bool

	mu      sync.Mutex
	offered []Comment
	seen    map[string]bool
	limited string
	killed  bool
}

func (s *Session) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func (s *Session) kill(point string) bool {
	if s.Kill != nil && s.Kill(point) {
		s.killed = true
	}
	return s.killed
}

// Offered is the follow-ups written to the mailbox, in order.
func (s *Session) Offered() []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment(nil), s.offered...)
}

// Tick checks the limits, discovers once and offers the new follow-ups
// that fit them, in order. A discovery error is logged and left to the
// next tick. Nothing more is discovered once a limit is reached.
func (s *Session) Tick(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return ErrKilled
	}
	if s.limited != "" {
		return nil
	}
	if ok, why := s.Limits.Allow(len(s.offered), s.Now()); !ok {
		s.limit(why)
		return nil
	}
	cs, err := s.Source.Discover(ctx)
	if err != nil {
		s.log().Warn("steer: discovery failed; trying again at the next check", "error", err.Error())
		return nil
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, c := range cs {
		if s.seen[c.Msg.ID] {
			continue
		}
		if ok, why := s.Limits.Allow(len(s.offered), s.Now()); !ok {
			s.limit(why)
			return nil
		}
		if s.kill(KillBeforeOffer) {
			return ErrKilled
		}
		c.Msg.Received = s.Now().UTC()
		if err := s.Mailbox.Offer(c.Msg); err != nil {
			s.log().Error("steer: could not write the mailbox; the follow-up stays pending", "id", c.Msg.ID, "error", err.Error())
			s.limit("the mailbox cannot be written")
			return nil
		}
		s.seen[c.Msg.ID] = true
		s.offered = append(s.offered, c)
		s.log().Info("steer: follow-up offered to the agent", "id", c.Msg.ID, "actor", c.Msg.Actor, "offered", len(s.offered))
		if s.kill(KillAfterOffer) {
			return ErrKilled
		}
	}
	return nil
}

func (s *Session) limit(why string) {
	s.limited = why
	s.log().Info("steer: no more follow-ups for this run; later ones stay pending runs", "reason", why, "offered", len(s.offered))
}

// Run ticks once at start and on every value of ticks until ctx ends.
func (s *Session) Run(ctx context.Context, ticks <-chan time.Time) {
	if s.Tick(ctx) == ErrKilled {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			if s.Tick(ctx) == ErrKilled {
				return
			}
		}
	}
}

// Finish records the delivered follow-ups after the agent ended:
// agentOK says it exited 0 on its own (not timed out, not signalled).
// Delivered are the offered follow-ups the agent acknowledged, among a
// final discovery's (Ordered: its prefix up to the first one not
// delivered); each is recorded in order, and the first failed record
// ends the recording (the rest stay pending). It returns the recorded
// ones.
func (s *Session) Finish(ctx context.Context, agentOK bool) ([]Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return nil, ErrKilled
	}
	if len(s.offered) == 0 {
		return nil, nil
	}
	if !agentOK {
		s.log().Info("steer: the agent did not succeed; its follow-ups are not recorded and stay pending runs", "offered", len(s.offered))
		return nil, nil
	}
	acks, err := s.Mailbox.Acks()
	if err != nil {
		s.log().Warn("steer: the ack file cannot be read; nothing is recorded, the follow-ups stay pending runs", "error", err.Error())
		return nil, nil
	}
	final, err := s.Source.Discover(ctx)
	if err != nil {
		s.log().Warn("steer: the final discovery failed; nothing is recorded, the follow-ups stay pending runs", "error", err.Error())
		return nil, nil
	}
	var done []Comment
	for _, c := range final {
		if !s.seen[c.Msg.ID] || !acks[c.Msg.ID] {
			if s.Ordered {
				break
			}
			continue
		}
		if s.kill(KillBeforeRecord) {
			return done, ErrKilled
		}
		if err := s.Source.Record(ctx, c); err != nil {
			s.log().Error("steer: could not record a delivered follow-up; it and the later ones stay pending runs", "id", c.Msg.ID, "error", err.Error())
			break
		}
		done = append(done, c)
		s.log().Info("steer: follow-up delivered and recorded", "id", c.Msg.ID, "actor", c.Msg.Actor)
		if s.kill(KillAfterRecord) {
			return done, ErrKilled
		}
	}
	return done, nil
}
