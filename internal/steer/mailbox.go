package steer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The mailbox's files in the run's private directory, and the variables
// that name them to the agent.
const (
	MailboxName = "steer.jsonl"
	AckName     = "steer-ack"
	EnvFile     = "FULLSEND_STEER_FILE"
	EnvAckFile  = "FULLSEND_STEER_ACK_FILE"
)

// MaxAckBytes bounds what is read of the ack file: the ids of far more
// follow-ups than any run takes (steer.max is at most
// harness.MaxSteerMax).
const MaxAckBytes = 64 << 10

// Mailbox is the agent's side of steering: an append-only file of
// Messages, and, with steer.stdin, the same lines on the agent's
// standard input. The runner is its only writer.
type Mailbox struct {
	Path    string // FULLSEND_STEER_FILE
	AckPath string // FULLSEND_STEER_ACK_FILE

	mu    sync.Mutex
	f     *os.File
	stdin io.WriteCloser // nil without steer.stdin
}

// CreateMailbox creates the mailbox and the (empty) ack file in dir, the
// run's private directory (0700), both 0600: with isolation they are
// handed to the agent's identity with the directory, so only it (and
// root) can read them.
func CreateMailbox(dir string) (*Mailbox, error) {
	m := &Mailbox{Path: filepath.Join(dir, MailboxName), AckPath: filepath.Join(dir, AckName)}
	for _, p := range []string{m.Path, m.AckPath} {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("steer: create %s: %w", p, err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("steer: create %s: %w", p, err)
		}
	}
	return m, nil
}

// WithStdin makes every offered line also be written to w (the write end
// of the agent's standard input); Close closes it.
func (m *Mailbox) WithStdin(w io.WriteCloser) { m.stdin = w }

// Offer appends msg to the mailbox (and the agent's standard input).
// The file is opened for each line, append-only and without following a
// link the agent may have put in its place; a stdin the agent closed is
// not an error (the file has the line).
func (m *Mailbox) Offer(msg Message) error {
	line, err := msg.Encode()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		f, err := os.OpenFile(m.Path, os.O_WRONLY|os.O_APPEND|guardFlags, 0)
		if err != nil {
			return fmt.Errorf("steer: open the mailbox: %w", err)
		}
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			_ = f.Close()
			return errors.New("steer: the mailbox is no longer a regular file")
		}
		m.f = f
	}
	if _, err := m.f.Write(line); err != nil {
		return fmt.Errorf("steer: write the mailbox: %w", err)
	}
	if m.stdin != nil {
		// An agent that does not read its standard input must not stall
		// steering once the pipe is full: the file has the line.
		if d, ok := m.stdin.(interface{ SetWriteDeadline(time.Time) error }); ok {
			_ = d.SetWriteDeadline(time.Now().Add(time.Second))
		}
		_, _ = m.stdin.Write(line)
	}
	return nil
}

// Close closes the mailbox and the agent's standard input.
func (m *Mailbox) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f != nil {
		_ = m.f.Close()
		m.f = nil
	}
	if m.stdin != nil {
		_ = m.stdin.Close()
		m.stdin = nil
	}
}

// Acks reads the ack file: the ids the agent acknowledged. The file is
// the agent's: it is opened without following a link and without
// blocking (a FIFO in its place reads nothing), must be a regular file,
// and at most MaxAckBytes of it are read.
func (m *Mailbox) Acks() (map[string]bool, error) {
	f, err := os.OpenFile(m.AckPath, os.O_RDONLY|guardFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("steer: open the ack file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("steer: the ack file is not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxAckBytes))
	if err != nil {
		return nil, fmt.Errorf("steer: read the ack file: %w", err)
	}
	return ParseAcks(b), nil
}

// ParseAcks reads ack-file content: one id per line, surrounding blanks
// ignored, a line of anything else (or an unknown id) acknowledges
// nothing. A last line without its newline counts (the agent may be
// killed right after writing it: the run then failed and nothing is
// recorded anyway).
func ParseAcks(b []byte) map[string]bool {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), MaxAckBytes)
	for sc.Scan() {
		id := strings.TrimSpace(sc.Text())
		if validID(id) {
			out[id] = true
		}
	}
	return out
}

// validID reports whether s has the form of a Message id.
func validID(s string) bool {
	n, ok := strings.CutPrefix(s, "comment-")
	if !ok || n == "" || len(n) > 19 || n[0] == '0' {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
