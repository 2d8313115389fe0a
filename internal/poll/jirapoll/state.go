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
// minutes by default, so permissions stay current), and the pacing
// ceiling the 429s set. None of it is a position: the checkpoints and
// the discovery cursor live in Jira, so a lost or foreign state costs
// calls and nothing else.
type saved struct {
	Account *pollstate.Account `json:"account,omitempty"`
	Jira    jira.Memory        `json:"jira"`
}

// stateMaxAge is the age past which a state is not used: the account is
// read again at least daily.
const stateMaxAge = 24 * time.Hour

// State connects a jira-poll client to its state file.
type State struct {
	store      *pollstate.Store
	client     *jira.Client
	credential string
}

// LoadState starts client from what store holds for the credential
// fingerprint credential (pollstate.Fingerprint of the site and
// credentials). account, when set, is the tool's own account id from
// the configuration (cursor.account_id): it stands in for /myself when
// the state has none for these credentials.
func LoadState(store *pollstate.Store, client *jira.Client, credential, account string) *State {
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
	return &State{store: store, client: client, credential: credential}
}

// Save writes what the client learned; a failure is logged.
func (s *State) Save() {
	if s == nil || s.store == nil {
		return
	}
	v := saved{Jira: s.client.Memory()}
	if me, ok := s.client.KnownMyself(); ok {
		v.Account = &pollstate.Account{Credential: s.credential, ID: me.AccountID}
	}
	s.store.SaveLogged(v)
}

// SaveState implements poll.StateSaver.
func (in *Input) SaveState() { in.state.Save() }
