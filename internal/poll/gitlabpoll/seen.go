package gitlabpoll

import (
	"sync"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/resolvers/gitlabentity"
)

// seen keeps what the current cycle's detection read, for detection's
// later items and the entity stage; each cycle starts it afresh
// (reset, in Discover), so roles are never older than the cycle.
type seen struct {
	once     sync.Once
	resolver *gitlabentity.Resolver

	mu       sync.Mutex
	subjects map[string]seenSubject
	actors   map[int64]gitlabentity.Actor
}

type seenSubject struct {
	s        subject
	notes    []*gitlab.Note
	labels   []*gitlab.LabelEvent
	complete bool
}

func (sn *seen) reset() {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	sn.subjects, sn.actors = nil, nil
}

// sawSubject records the notes and label events detection read for s.
func (p *Poller) sawSubject(s subject, notes []*gitlab.Note, labels []*gitlab.LabelEvent) {
	sn := &p.seen
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.subjects == nil {
		sn.subjects = map[string]seenSubject{}
	}
	complete := len(notes) < maxPages*100 && len(labels) < gitlabevent.MaxEventPages*100
	sn.subjects[s.Key()] = seenSubject{s: s, notes: notes, labels: labels, complete: complete}
}

// sawActor records a user and membership detection looked up.
func (p *Poller) sawActor(u *gitlab.User, m *gitlab.ProjectMember) {
	sn := &p.seen
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.actors == nil {
		sn.actors = map[int64]gitlabentity.Actor{}
	}
	sn.actors[u.ID] = gitlabentity.Actor{User: u, Member: m}
}

// actor is the user and membership of id this cycle's detection read.
func (sn *seen) actor(id int64) (gitlabentity.Actor, bool) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	a, ok := sn.actors[id]
	return a, ok
}

// snapshot returns what detection read for s (the same update), when it
// is complete, and the actors it looked up.
func (sn *seen) snapshot(s subject) (gitlabentity.Snapshot, map[int64]gitlabentity.Actor, bool) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	got, ok := sn.subjects[s.Key()]
	if !ok || !got.complete || !got.s.updated.Equal(s.updated) {
		return gitlabentity.Snapshot{}, nil, false
	}
	snap := gitlabentity.Snapshot{Issue: s.Issue, MergeRequest: s.MergeRequest, Notes: got.notes, LabelEvents: got.labels}
	known := make(map[int64]gitlabentity.Actor, len(sn.actors))
	for id, a := range sn.actors {
		known[id] = a
	}
	return snap, known, true
}
