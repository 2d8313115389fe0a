package steer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func pos(sec int, id int64) changepos.Pos {
	return changepos.Pos{At: t0.Add(time.Duration(sec) * time.Second), ID: id}
}

func cm(sec int, id int64, steer bool) Comment {
	return Comment{ID: id, Pos: pos(sec, id), Steer: steer, Msg: Message{ID: IDOf(id), Text: "t"}}
}

func ids(cs []Comment) []int64 {
	out := []int64{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestPrefix(t *testing.T) {
	own := pos(0, 1)
	tests := []struct {
		name string
		recs []Record
		cs   []Comment
		want []int64
	}{
		{"nothing pending", nil, []Comment{cm(5, 10, true)}, []int64{}},
		{"the pending comment", []Record{{Pos: pos(5, 10), Waiting: true}}, []Comment{cm(5, 10, true)}, []int64{10}},
		{"coalesced comments in order", []Record{{Pos: pos(3, 8)}, {Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(5, 10, true), cm(3, 8, true)}, []int64{8, 10}},
		{"a comment without a run (dropped webhook) is taken", []Record{{Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(3, 8, true), cm(5, 10, true)}, []int64{8, 10}},
		{"a label change coalesced ends the prefix", []Record{{Pos: pos(3, 0)}, {Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(2, 7, true), cm(5, 10, true)}, []int64{7}},
		{"an outsider's comment is passed over", []Record{{Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(3, 8, false), cm(5, 10, true)}, []int64{10}},
		{"a run whose comment no longer steers ends it", []Record{{Pos: pos(3, 8)}, {Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(3, 8, false), cm(5, 10, true)}, []int64{}},
		{"the pending run's own comment unreadable", []Record{{Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(3, 8, true)}, []int64{8}},
		{"comments after the pending change wait", []Record{{Pos: pos(5, 10), Waiting: true}},
			[]Comment{cm(5, 10, true), cm(6, 11, true)}, []int64{10}},
		{"older than own ignored", []Record{{Pos: pos(-5, 3), Waiting: true}}, []Comment{cm(-5, 3, true)}, []int64{}},
		{"same second told apart by id", []Record{{Pos: pos(0, 2), Waiting: true}}, []Comment{cm(0, 2, true)}, []int64{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(Prefix(own, tt.recs, tt.cs)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Prefix = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAfter(t *testing.T) {
	got := ids(After(pos(0, 0), []Comment{cm(9, 12, true), cm(-1, 2, true), cm(4, 5, false), cm(3, 4, true)}))
	if want := []int64{4, 12}; !reflect.DeepEqual(got, want) {
		t.Fatalf("After = %v, want %v", got, want)
	}
}

func TestLimits(t *testing.T) {
	l := Limits{Max: 2, MinTimeLeft: 5 * time.Minute, Deadline: t0.Add(30 * time.Minute)}
	tests := []struct {
		offered int
		now     time.Time
		ok      bool
	}{
		{0, t0, true}, {1, t0, true}, {2, t0, false},
		{0, t0.Add(25 * time.Minute), true}, {0, t0.Add(25*time.Minute + time.Second), false},
	}
	for _, tt := range tests {
		if ok, _ := l.Allow(tt.offered, tt.now); ok != tt.ok {
			t.Errorf("Allow(%d, %v) = %v, want %v", tt.offered, tt.now, ok, tt.ok)
		}
	}
	if ok, _ := (Limits{Max: 1}).Allow(0, t0); !ok {
		t.Error("no deadline: want allowed")
	}
}

func TestMessageRoundTrip(t *testing.T) {
	ev := &event.Event{Actor: event.Actor{ID: "alice", Role: event.RoleWrite},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: event.CommentOf("also <handle> the retries\n\"quoted\"")}}
	m := MessageOf(ev, 4021, "https://h/o/r/issues/7#issuecomment-4021", t0)
	line, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(line), "}\n") || strings.Count(string(line), "\n") != 1 {
		t.Fatalf("not one line: %q", line)
	}
	if !strings.Contains(string(line), `"id":"comment-4021"`) || !strings.Contains(string(line), "<handle>") {
		t.Fatalf("line %s", line)
	}
	back, err := DecodeMessage(line)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Fatalf("DecodeMessage = %+v, %v; want %+v", back, err, m)
	}
	for _, bad := range []string{`{}`, `{"id":"x"}`, `[1]`, `{"id":"comment-1","actor":"","role":"","text":"","source_url":"","received":"2026-01-01T00:00:00Z","more":1}`} {
		if _, err := DecodeMessage([]byte(bad)); err == nil {
			t.Errorf("DecodeMessage(%s): want an error", bad)
		}
	}
}

func TestParseAcks(t *testing.T) {
	got := ParseAcks([]byte("comment-12\n  comment-7  \ncomment-01\nfoo\ncomment-\ncomment-9x\n\ncomment-5"))
	want := map[string]bool{"comment-12": true, "comment-7": true, "comment-5": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseAcks = %v, want %v", got, want)
	}
}

func TestMailboxRefusesAgentTricks(t *testing.T) {
	dir := t.TempDir()
	m, err := CreateMailbox(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{m.Path, m.AckPath} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v, want 0600", p, st.Mode(), err)
		}
	}
	if err := os.WriteFile(m.AckPath, []byte("comment-3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if a, err := m.Acks(); err != nil || !a["comment-3"] {
		t.Fatalf("Acks = %v, %v", a, err)
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("comment-99\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(m.AckPath)
	if err := os.Symlink(secret, m.AckPath); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Acks(); err == nil {
		t.Fatal("an ack file that is a link was read")
	}
	_ = os.Remove(m.AckPath)
	if err := syscall.Mkfifo(m.AckPath, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Acks(); err == nil {
		t.Fatal("an ack file that is a FIFO was read")
	}
	_ = os.Remove(m.Path)
	if err := os.Symlink(secret, m.Path); err != nil {
		t.Fatal(err)
	}
	if err := m.Offer(Message{ID: "comment-1"}); err == nil {
		t.Fatal("a mailbox that is a link was written")
	}
	if b, _ := os.ReadFile(secret); string(b) != "comment-99\n" {
		t.Fatalf("the link's target was changed: %q", b)
	}
}

// fakeSource is a Source over a list the test sets.
type fakeSource struct {
	cs       []Comment
	err      error
	recorded []int64
	failRec  int64
	calls    int
}

func (f *fakeSource) Discover(context.Context) ([]Comment, error) {
	f.calls++
	return append([]Comment(nil), f.cs...), f.err
}

func (f *fakeSource) Record(_ context.Context, c Comment) error {
	if c.ID == f.failRec {
		return errors.New("refused")
	}
	f.recorded = append(f.recorded, c.ID)
	return nil
}

func newSession(t *testing.T, src Source, l Limits, ordered bool) (*Session, *time.Time) {
	t.Helper()
	m, err := CreateMailbox(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	return &Session{Source: src, Mailbox: m, Limits: l, Ordered: ordered, Now: func() time.Time { return now }}, &now
}

func ack(t *testing.T, s *Session, ids ...int64) {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(IDOf(id) + "\n")
	}
	if err := os.WriteFile(s.Mailbox.AckPath, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mailboxLines(t *testing.T, s *Session) []string {
	t.Helper()
	b, err := os.ReadFile(s.Mailbox.Path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestSessionDeliversOnceAndRecordsOnlyAcknowledged(t *testing.T) {
	ctx := context.Background()
	src := &fakeSource{cs: []Comment{cm(1, 10, true)}}
	s, _ := newSession(t, src, Limits{Max: 5}, true)
	for range 3 {
		if err := s.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	src.cs = append(src.cs, cm(2, 11, true))
	_ = s.Tick(ctx)
	if l := mailboxLines(t, s); len(l) != 2 {
		t.Fatalf("mailbox %q: want each follow-up once", l)
	}
	ack(t, s, 11) // the second only: a prefix rule records nothing
	got, err := s.Finish(ctx, true)
	if err != nil || len(got) != 0 || len(src.recorded) != 0 {
		t.Fatalf("Finish = %v, %v, recorded %v: want nothing before the first is acknowledged", ids(got), err, src.recorded)
	}
	ack(t, s, 10, 11)
	if _, err := s.Finish(ctx, true); err != nil || !reflect.DeepEqual(src.recorded, []int64{10, 11}) {
		t.Fatalf("recorded %v, %v; want [10 11]", src.recorded, err)
	}
}

func TestSessionUnorderedRecordsEveryAcknowledged(t *testing.T) {
	src := &fakeSource{cs: []Comment{cm(1, 10, true), cm(2, 11, true)}}
	s, _ := newSession(t, src, Limits{Max: 5}, false)
	_ = s.Tick(context.Background())
	ack(t, s, 11)
	if _, err := s.Finish(context.Background(), true); err != nil || !reflect.DeepEqual(src.recorded, []int64{11}) {
		t.Fatalf("recorded %v, %v; want [11]", src.recorded, err)
	}
}

func TestSessionFailedAgentRecordsNothing(t *testing.T) {
	src := &fakeSource{cs: []Comment{cm(1, 10, true)}}
	s, _ := newSession(t, src, Limits{Max: 5}, true)
	_ = s.Tick(context.Background())
	ack(t, s, 10)
	if _, err := s.Finish(context.Background(), false); err != nil || len(src.recorded) != 0 {
		t.Fatalf("recorded %v after a failed agent", src.recorded)
	}
}

func TestSessionLimits(t *testing.T) {
	src := &fakeSource{cs: []Comment{cm(1, 10, true), cm(2, 11, true), cm(3, 12, true)}}
	s, now := newSession(t, src, Limits{Max: 2, MinTimeLeft: 5 * time.Minute, Deadline: t0.Add(10 * time.Minute)}, true)
	_ = s.Tick(context.Background())
	if got := ids(s.Offered()); !reflect.DeepEqual(got, []int64{10, 11}) {
		t.Fatalf("offered %v, want max 2", got)
	}
	calls := src.calls
	_ = s.Tick(context.Background())
	if src.calls != calls {
		t.Fatal("discovery went on after a limit was reached")
	}

	src2 := &fakeSource{cs: []Comment{cm(1, 10, true)}}
	s2, now2 := newSession(t, src2, Limits{Max: 2, MinTimeLeft: 5 * time.Minute, Deadline: t0.Add(10 * time.Minute)}, true)
	*now2 = t0.Add(5*time.Minute + time.Second)
	_ = s2.Tick(context.Background())
	if len(s2.Offered()) != 0 || src2.calls != 0 {
		t.Fatalf("offered %v with less than min_time_left", ids(s2.Offered()))
	}
	_ = now
}

func TestSessionRecordFailureStopsTheRest(t *testing.T) {
	src := &fakeSource{cs: []Comment{cm(1, 10, true), cm(2, 11, true)}, failRec: 10}
	s, _ := newSession(t, src, Limits{Max: 5}, true)
	_ = s.Tick(context.Background())
	ack(t, s, 10, 11)
	if _, _ = s.Finish(context.Background(), true); len(src.recorded) != 0 {
		t.Fatalf("recorded %v after the first record failed", src.recorded)
	}
}

func TestConsumed(t *testing.T) {
	m := Marker("triage", 42)
	rs := []Reply{{Author: "mallory", Body: m}, {Author: "bot", Body: "hello\n" + Marker("code", 42)}}
	if Consumed(rs, "bot", "triage", 42) {
		t.Fatal("a marker by another account, or of another harness, counted")
	}
	rs = append(rs, Reply{Author: "bot", Body: ReplyText("triage", 42, "gha-dispatch/9")})
	if !Consumed(rs, "bot", "triage", 42) || Consumed(rs, "bot", "triage", 43) || Consumed(rs, "", "triage", 42) {
		t.Fatal("Consumed wrong")
	}
}

func TestMarkedByCountsOnlyOwnReplies(t *testing.T) {
	rs := []Reply{{Author: "mallory", Body: Marker("triage", 7)}, {Author: "bot", Body: ReplyText("triage", 8, "") + "\n" + Marker("code", 8)},
		{Author: "bot", Body: "[fullsend:steered triage/comment-x]"}}
	got := MarkedBy(rs, "bot")
	if want := map[int64][]string{8: {"triage", "code"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("MarkedBy = %v, want %v", got, want)
	}
}
