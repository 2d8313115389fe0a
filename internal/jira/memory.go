package jira

import (
	"time"

	"golang.org/x/time/rate"
)

// Memory is what a client learned that a new client of the same site and
// credentials may start from (a one-shot process, package pollstate):
// the project roles, each with when it was read (used only while younger
// than Options.CacheTTL, so permissions stay as current as within one
// process), the ceiling the 429s set (aimd.go), and whether the site
// refused to compare issue ids as numbers (keycompare.go).
type Memory struct {
	Roles   map[string]RoleMembers `json:"roles,omitempty"`
	Ceiling *Ceiling               `json:"ceiling,omitempty"`
	// IDsNotNumeric: the site's JQL does not compare issue ids as
	// numbers across projects (NoteIDsNotNumeric).
	IDsNotNumeric bool `json:"ids_not_numeric,omitempty"`
}

// RoleMembers is one project's role membership as read at Fetched:
// account id → role names.
type RoleMembers struct {
	Members map[string][]string `json:"members"`
	Fetched time.Time           `json:"fetched"`
}

// Ceiling is the AIMD ceiling at At: the rate, and whether a refusal
// was ever seen (calls then go one at a time).
type Ceiling struct {
	Rate    float64   `json:"rate"`
	Learned bool      `json:"learned"`
	At      time.Time `json:"at"`
}

// ceilingMemory is how long a learned ceiling is remembered: a burst
// limit seen within it is assumed to hold still.
const ceilingMemory = time.Hour

// Memory returns what the client learned.
func (c *Client) Memory() Memory {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := Memory{Roles: map[string]RoleMembers{}, IDsNotNumeric: c.idsNotNumeric}
	for k, rc := range c.roles {
		m.Roles[k] = RoleMembers{Members: rc.members, Fetched: rc.fetched}
	}
	if c.aimd.learned() || c.aimd.Rate() < c.aimd.max {
		m.Ceiling = &Ceiling{Rate: c.aimd.Rate(), Learned: c.aimd.learned(), At: c.opts.Now()}
	}
	return m
}

// Remember starts the client from m: roles still younger than CacheTTL
// (and not from the future), a ceiling learned within the last hour,
// grown back by the clean windows that have passed since, and the site's
// refusal of numeric issue-id comparisons.
func (c *Client) Remember(m Memory) {
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idsNotNumeric = c.idsNotNumeric || m.IDsNotNumeric
	for k, r := range m.Roles {
		if age := now.Sub(r.Fetched); ValidProjectKey(k) && r.Members != nil && age >= 0 && age < c.opts.CacheTTL {
			c.roles[k] = roleCache{members: r.Members, fetched: r.Fetched}
		}
	}
	if cl := m.Ceiling; cl != nil && cl.Rate > 0 {
		if age := now.Sub(cl.At); age >= 0 && age < ceilingMemory {
			c.aimd.restore(cl.Rate, cl.Learned, age, now)
			c.limiter.SetLimitAt(now, rate.Limit(c.aimd.Rate()))
			c.limiter.SetBurstAt(now, c.aimd.burst(c.opts.Burst))
		}
	}
}

// SetMyself makes u the authenticated account without asking Jira
// (/myself): the caller knows it for these credentials.
func (c *Client) SetMyself(u User) {
	if u.AccountID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.myself = &u
}

// KnownMyself reports the authenticated account if the client knows it.
func (c *Client) KnownMyself() (User, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.myself == nil {
		return User{}, false
	}
	return *c.myself, true
}

// restore sets the controller to rate (within [min, max]) as learned age
// ago, grown by one step per whole window since, with a window starting
// now.
func (a *aimd) restore(r float64, seen bool, age time.Duration, now time.Time) {
	r += a.step * float64(age/a.window)
	a.rate = min(max(r, a.min), a.max)
	a.seen = a.seen || seen
	a.start = now
}
