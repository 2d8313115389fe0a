package cli

import (
	"context"
	"fmt"
	"io"
)

// stdinHint is printed on stderr when a command is about to wait for an
// event on a terminal: without it the command looks hung.
const stdinHint = "reading a %s from standard input; end with Ctrl-D, or %s\n"

// eventStdin returns app.Stdin for a command that reads one event from
// it, made cancellable: a read ends as soon as ctx does (SIGINT, SIGTERM),
// although the blocked read itself stays behind (standard input cannot be
// interrupted portably; the process is about to exit). On a terminal it
// first says what is expected when reads is set (the command will read
// the event from standard input); other says how to give a file instead.
func (app *App) eventStdin(ctx context.Context, reads bool, other string) io.Reader {
	return app.docStdin(ctx, reads, "event", "NormalizedEvent", other)
}

// docStdin is eventStdin for a document, noun ("event", "entity"), of the
// contract named title.
func (app *App) docStdin(ctx context.Context, reads bool, noun, title, other string) io.Reader {
	if reads {
		if app.StdinIsTerminal {
			fmt.Fprintf(app.Stderr, stdinHint, title, other)
		}
		app.Log.Debug("waiting for the "+noun+" on standard input", "contract", title)
	}
	if app.Stdin == nil {
		return nil
	}
	return &ctxReader{ctx: ctx, r: app.Stdin}
}

// ctxReader reads r in a goroutine so that Read returns when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, c.stopped()
	}
	// The goroutine reads into its own buffer: after a cancellation it may
	// still complete, and must not write into p, which the caller owns again.
	buf := make([]byte, len(p))
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		return 0, c.stopped()
	}
}

// stopped is the error of a read that ctx ended: its cause (a Signal says
// "interrupted (SIGINT)"), not "context canceled".
func (c *ctxReader) stopped() error {
	return fmt.Errorf("standard input: %w", context.Cause(c.ctx))
}
