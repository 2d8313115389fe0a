package jirapoll_test

import (
	"context"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
)

// The lock protocol assumes that the jitter between a poller's lock write
// and its verification outlasts every other poller's gap between its
// consistent re-read and its lock write (docs/polling.md). The world's
// jitter passes on the world's clock and takes no real time, while the
// pollers' calls take real time against the emulator, so the world keeps
// that assumption explicitly: each poller's gap is tracked, and a jitter
// wait lasts until every gap open when it began has closed.

// gaps are the re-read-to-lock-write gaps open now, each closed by its
// channel.
type gaps struct {
	mu   sync.Mutex
	open map[*gap]struct{}
}

type gap struct{ done chan struct{} }

func (g *gaps) begin() *gap {
	x := &gap{done: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open == nil {
		g.open = map[*gap]struct{}{}
	}
	g.open[x] = struct{}{}
	return x
}

func (g *gaps) end(x *gap) {
	if x == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.open[x]; ok {
		delete(g.open, x)
		close(x.done)
	}
}

// wait returns when every gap open now has closed, or ctx ends.
func (g *gaps) wait(ctx context.Context) {
	g.mu.Lock()
	var chans []chan struct{}
	for x := range g.open {
		chans = append(chans, x.done)
	}
	g.mu.Unlock()
	for _, c := range chans {
		select {
		case <-c:
		case <-ctx.Done():
			return
		}
	}
}

// gapDriver is a poller's driver with its re-read-to-lock-write gap
// tracked in the world's gaps.
type gapDriver struct {
	*jirapoll.Driver
	g   *gaps
	cur *gap // the gap this poller has open
}

func (d *gapDriver) Discover(ctx context.Context) (*poll.Discovery, error) {
	d.g.end(d.cur) // a cycle that stopped before locking left it open
	d.cur = nil
	return d.Driver.Discover(ctx)
}

func (d *gapDriver) Recheck(ctx context.Context, items []*poll.Item) error {
	d.cur = d.g.begin()
	err := d.Driver.Recheck(ctx, items)
	if err != nil {
		d.g.end(d.cur)
	}
	return err
}

func (d *gapDriver) Acquire(ctx context.Context, items []*poll.Item) error {
	defer d.g.end(d.cur)
	return d.Driver.Acquire(ctx, items)
}
