package jirapoll

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// saved is what jira-poll keeps in the state directory (package
// pollstate): the tool's own account for the credentials that showed it
// (no /myself per process), the project roles with when they were read
// (used only while younger than the client's role cache time, 10
// minutes by default, so permissions stay current), the pacing
// ceiling the 429s set and whether the site compares issue ids as numbers
// (jira.Memory), and the scheduled discovery's sweep position and
// cadence (savedSweep). None of it is a checkpoint: the checkpoints, the
// discovery cursor and the receipts live in Jira, so a lost or foreign
// state costs calls and nothing else.
type saved struct {
	Account *pollstate.Account `json:"account,omitempty"`
	Jira    jira.Memory        `json:"jira"`
	Poller  *savedPoller       `json:"poller,omitempty"`
	Sweep   *savedSweep        `json:"sweep,omitempty"`
}

// savedPoller is the poller's place among the pollers that share work
// ("Sharing work between pollers", docs/polling.md): its id, so that a
// one-shot process comes back as the poller the cursor lists instead of a
// stranger that shares nothing, and its discoveries' memory (how many,
// which issues waited unserved, the pollers it saw), on Jira's clock.
// Locks stay this process's own: every lock id has a random part.
type savedPoller struct {
	ID     string                 `json:"id"`
	Rounds int                    `json:"rounds"`
	At     time.Time              `json:"at"`
	Streak map[string]savedStreak `json:"streak,omitempty"`
	Known  map[string]time.Time   `json:"known,omitempty"`
}

type savedStreak struct {
	Base time.Time `json:"base"`
	N    int       `json:"n"`
}

// stateMaxAge is the age past which a state is not used: the account is
// read again at least daily.
const stateMaxAge = 24 * time.Hour

// State connects a jira-poll client to its state file.
type State struct {
	store      *pollstate.Store
	client     *jira.Client
	credential string
	poller     *savedPoller // as loaded
	sweep      *savedSweep  // as loaded
	drv        *Driver      // attached (Attach)
	release    func()       // gives the store's claim back
	claimed    bool         // this process holds the store's claim
}

// LoadState starts client from what store holds for the credential
// fingerprint credential (pollstate.Fingerprint of the site and
// credentials). account, when set, is the tool's own account id from
// the configuration (cursor.account_id): it stands in for /myself when
// the state has none for these credentials.
//
// The store's claim is taken first: only the process that holds it saves
// (Save), and what it loads is the last state saved.
func LoadState(store *pollstate.Store, client *jira.Client, credential, account string) *State {
	release, claimed := store.Claim()
	var s saved
	if store.Load(&s, stateMaxAge) {
		client.Remember(s.Jira)
		if id, ok := s.Account.Of(credential); ok {
			account = id
		}
	}
	if account != "" {
		client.SetMyself(jira.User{AccountID: account})
	}
	return &State{store: store, client: client, credential: credential, poller: s.Poller, sweep: s.Sweep,
		release: release, claimed: claimed}
}

// Close gives back the claim on the state (the process's exit does too).
func (s *State) Close() {
	if s != nil && s.release != nil {
		s.release()
	}
}

// Attach makes d the poller the state was saved by (its id), with the
// memory of its discoveries when they are recent (younger than the
// poller TTL, the lock stale threshold: older, the cursor no longer
// lists it), and saves d's with the state. Only the process that holds
// the store's claim is that poller: another one running at the same time
// from the same directory keeps its own id and leaves the saved one be.
// Call it before d's first cycle.
func (s *State) Attach(d *Driver) {
	if s == nil || !s.claimed {
		return
	}
	s.drv = d
	d.restoreSweep(s.sweep)
	p := s.poller
	if p == nil || p.ID == "" {
		return
	}
	d.o.PollerID = p.ID
	d.cur.rounds = min(p.Rounds, 1) // the next discovery is a second one
	if age := d.o.Now().Sub(p.At); age < 0 || age >= d.pollerTTL() {
		return
	}
	d.cur.rounds = p.Rounds
	d.cur.streak = map[string]streak{}
	for k, st := range p.Streak {
		d.cur.streak[k] = streak{base: st.Base, n: st.N}
	}
	d.cur.known = p.Known
}

// pollerState is what Save keeps of the attached driver (as loaded when
// another process holds the claim).
func (s *State) pollerState() *savedPoller {
	d := s.drv
	if d == nil {
		return s.poller
	}
	p := &savedPoller{ID: d.o.PollerID, Rounds: d.cur.rounds, At: d.o.Now(), Known: d.cur.known,
		Streak: make(map[string]savedStreak, len(d.cur.streak))}
	for k, st := range d.cur.streak {
		p.Streak[k] = savedStreak{Base: st.base, N: st.n}
	}
	return p
}

// Save writes what the client learned; a failure is logged. Only the
// process that holds the store's claim writes (pollstate.Store.Save):
// another one started beside it from the same directory loaded what may
// be older than what the claimant saves, and writing it back would undo
// the claimant's sweep and cadence.
func (s *State) Save() {
	if s == nil || s.store == nil {
		return
	}
	v := saved{Jira: s.client.Memory(), Poller: s.pollerState(), Sweep: s.sweep}
	if s.drv != nil {
		v.Sweep = s.drv.savedSweep()
	}
	if me, ok := s.client.KnownMyself(); ok {
		v.Account = &pollstate.Account{Credential: s.credential, ID: me.AccountID}
	}
	s.store.SaveLogged(v)
}

// SaveState implements poll.StateSaver.
func (in *Input) SaveState() { in.state.Save() }

// ReleaseState implements poll.StateReleaser.
func (in *Input) ReleaseState() { in.state.Close() }
