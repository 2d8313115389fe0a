package forgepoll

import (
	"context"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// Account is the tool's own account on the forge as a credential showed
// it, kept in the state directory so that a new process with the same
// credential does not ask again. Safe for concurrent use.
type Account struct {
	mu sync.Mutex
	a  *pollstate.Account
}

// Get is the account remembered for the credential fingerprint fp, else
// read's answer (remembered when it has one).
func (c *Account) Get(ctx context.Context, fp string, read func(context.Context) (string, error)) (string, error) {
	c.mu.Lock()
	id, ok := c.a.Of(fp)
	c.mu.Unlock()
	if ok {
		return id, nil
	}
	id, err := read(ctx)
	if err != nil {
		return id, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.a = &pollstate.Account{Credential: fp, ID: id}
	return id, nil
}

// Saved is the account remembered (for the state directory; nil: none).
func (c *Account) Saved() *pollstate.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.a
}

// Restore keeps a saved account.
func (c *Account) Restore(a *pollstate.Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.a = a
}
