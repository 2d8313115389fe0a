package status

import (
	"context"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/redact"
)

// clearHome moves a terminal's cursor home and clears the screen.
const clearHome = "\x1b[H\x1b[2J"

// watch prints a snapshot now and at every tick until ctx ends, which is
// a clean stop (or the ticker's channel closes). On a terminal each frame
// replaces the last; otherwise frames follow each other, each after a
// timestamp line. A
// snapshot that fails is shown in its frame and retried at the next tick,
// unless the configuration or the credentials are wrong.
func (s *snapshotter) watch(ctx context.Context) error {
	tick, stop := s.o.Ticker(s.o.Interval)
	defer stop()
	for {
		if err := s.frame(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // stopped (SIGINT/SIGTERM) during a snapshot
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-tick:
			if !ok {
				return nil
			}
		}
	}
}

// frame writes one frame.
func (s *snapshotter) frame(ctx context.Context) error {
	now := s.o.Now().UTC()
	if s.o.Terminal && s.o.Format == FormatTable {
		fmt.Fprint(s.o.Out, clearHome)
		fmt.Fprintf(s.o.Out, "every %s: fullsend status    %s\n\n", s.o.Interval, now.Format(time.RFC3339))
	} else if s.o.Format == FormatTable {
		fmt.Fprintf(s.o.Out, "--- %s ---\n", now.Format(time.RFC3339))
	}
	rep, err := s.snapshot(ctx, now)
	switch {
	case err != nil && fatal(err):
		return err
	case err != nil:
		s.o.Log.Warn("status snapshot failed; retrying at the next tick", "error", err.Error())
		_, werr := fmt.Fprintf(s.o.Out, "error: %s\n", redact.String(err.Error()))
		return werr
	}
	return s.render(rep)
}
