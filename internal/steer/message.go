package steer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// MaxLine bounds one mailbox line (the envelope of a follow-up whose text
// is at most event.MaxCommentBody code points of up to 4 bytes each, with
// its escapes, fits).
const MaxLine = 64 << 10

// Message is the envelope of one follow-up, one JSON object per line of
// the mailbox ($FULLSEND_STEER_FILE) and, with steer.stdin, of the
// agent's standard input. Its fields are fixed (docs/steering.md).
type Message struct {
	// ID names the follow-up: "comment-" and the platform's comment or
	// note id. The agent acknowledges it by writing it, alone on a line,
	// to $FULLSEND_STEER_ACK_FILE.
	ID string `json:"id"`
	// Actor and Role are the author's id and role as the authorization
	// gate saw them (event.Actor).
	Actor string `json:"actor"`
	Role  string `json:"role"`
	// Text is the comment's body as the run's own event would carry it
	// (event.CommentOf: cut to event.MaxCommentBody code points).
	Text string `json:"text"`
	// SourceURL is the comment's web address.
	SourceURL string `json:"source_url"`
	// Received is when the runner read the follow-up, on the platform's
	// clock.
	Received time.Time `json:"received"`
}

// IDOf is the message id of comment id.
func IDOf(comment int64) string { return "comment-" + strconv.FormatInt(comment, 10) }

// MessageOf is the envelope of a follow-up mapped as ev (a comment_added
// event), read at received.
func MessageOf(ev *event.Event, comment int64, url string, received time.Time) Message {
	m := Message{ID: IDOf(comment), Actor: ev.Actor.ID, Role: string(ev.Actor.Role), SourceURL: url, Received: received.UTC()}
	if c := ev.Transition.Comment; c != nil {
		m.Text = c.Body
	}
	return m
}

// Encode is m as one line: compact JSON and a newline. HTML characters
// are not escaped (the text is the person's, as written).
func (m Message) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if b.Len() > MaxLine {
		return nil, fmt.Errorf("steer: message %s is %d bytes, over %d", m.ID, b.Len(), MaxLine)
	}
	return b.Bytes(), nil
}

// DecodeMessage reads one mailbox line back (an agent's library, and the
// tests): every field required, none unknown.
func DecodeMessage(line []byte) (Message, error) {
	if len(line) > MaxLine {
		return Message{}, fmt.Errorf("steer: a message line of %d bytes is over %d", len(line), MaxLine)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Message{}, fmt.Errorf("steer: message: %w", err)
	}
	for _, k := range []string{"id", "actor", "role", "text", "source_url", "received"} {
		if _, ok := raw[k]; !ok {
			return Message{}, fmt.Errorf("steer: message: missing %q", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var m Message
	if err := dec.Decode(&m); err != nil {
		return Message{}, fmt.Errorf("steer: message: %w", err)
	}
	if m.ID == "" {
		return Message{}, errors.New("steer: message: empty id")
	}
	return m, nil
}
