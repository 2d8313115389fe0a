package sandbox

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Pipes carries an agent's standard output and error through pipes whose
// write ends belong to the agent's identity. A pipe belongs to the user
// that created it, and a process of another user cannot reopen it through
// /proc/self/fd (which is what `echo >/dev/stderr` does); with the write
// ends chowned, an isolated agent can.
type Pipes struct {
	child []*os.File // write ends, closed in fullsend once the agent started
	read  []*os.File
	wg    sync.WaitGroup
}

// NewPipes replaces cmd.Stdout and cmd.Stderr (when set) by pipes owned
// by id that copy to the original writers. One pipe serves both when they
// are the same writer, which keeps their lines in order.
func NewPipes(cmd *exec.Cmd, id Identity) (*Pipes, error) {
	p := &Pipes{}
	shared := cmd.Stdout != nil && cmd.Stdout == cmd.Stderr
	for _, dst := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if *dst == nil {
			continue
		}
		if shared && dst == &cmd.Stderr {
			cmd.Stderr = cmd.Stdout
			break
		}
		r, w, err := os.Pipe()
		if err != nil {
			p.Close()
			return nil, err
		}
		p.child, p.read = append(p.child, w), append(p.read, r)
		if err := w.Chown(int(id.UID), int(id.GID)); err != nil {
			p.Close()
			return nil, err
		}
		out := *dst
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			_, _ = io.Copy(out, r)
		}()
		*dst = w
	}
	return p, nil
}

// Started closes fullsend's copies of the write ends: the agent holds the
// only ones, so the copies end when it (and whatever inherited them) is
// gone.
func (p *Pipes) Started() {
	for _, w := range p.child {
		_ = w.Close()
	}
}

// Wait waits for the copies to finish, at most until the channel of
// after(grace) receives (a process that left the agent's group may hold a
// write end); then it closes the read ends.
func (p *Pipes) Wait(grace time.Duration, after func(time.Duration) <-chan time.Time) {
	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-after(grace):
	}
	p.Close()
	<-done
}

// Close closes every end still open; the copies end.
func (p *Pipes) Close() {
	for _, f := range append(p.child, p.read...) {
		_ = f.Close()
	}
}
