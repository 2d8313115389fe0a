package jira

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/redact"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Defaults used when an Options field is zero.
const (
	DefaultRPS              = 10
	DefaultBurst            = 20
	DefaultTimeout          = 30 * time.Second
	DefaultMaxRetries       = 4
	DefaultMaxResponseBytes = 32 << 20
	DefaultCacheTTL         = 10 * time.Minute
)

// Options configure a Client. Only BaseURL and Token are required.
type Options struct {
	// BaseURL is the site, e.g. https://acme.atlassian.net. Plain http is
	// accepted only for loopback hosts.
	BaseURL string
	// Email selects Basic auth (email + API token); empty means Bearer.
	Email string
	Token string

	// RPS and Burst size the client-side token bucket (config rate_limit).
	RPS   float64
	Burst int
	// Timeout bounds every single HTTP attempt.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt of a
	// retryable call; negative disables retries.
	MaxRetries int
	// MaxResponseBytes caps every response body.
	MaxResponseBytes int64
	// BackoffBase and BackoffMax shape full-jitter exponential backoff
	// (defaults 500ms and 30s). MaxRetryAfter is the longest Retry-After the
	// client will wait (default 2m); a longer one fails the call.
	// RetryBudget bounds the time one call spends retrying (zero: no bound).
	BackoffBase, BackoffMax, MaxRetryAfter, RetryBudget time.Duration
	// CacheTTL bounds how long project-role membership is cached.
	CacheTTL time.Duration

	Logger *slog.Logger
	// OnRequest, if set, is called after every HTTP attempt with the
	// endpoint template, the status (0 for a transport error) and duration.
	OnRequest func(endpoint string, status int, dur time.Duration)
	// Transport replaces http.DefaultTransport (tests).
	Transport http.RoundTripper
	// Sleep waits d or until ctx ends (tests replace it); Now is the clock
	// (the limiter and rate-limit pacing run on it, so a test replacing
	// one replaces both);
	// Rand returns a uniform int64 in [0,n) for jitter.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	Rand  func(n int64) int64
	// Clock, when set, is Jira's clock (package trackerclock): it observes
	// every answer's Date, and the times Jira states on its own clock
	// (a Retry-After date, X-RateLimit-Reset) are read against it.
	Clock *trackerclock.Clock
}

// Client talks to one Jira Cloud site. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	auth    string // Authorization header value; never logged
	http    *http.Client
	retry   httpx.Retry
	limiter *rate.Limiter
	rps     float64
	opts    Options
	log     *slog.Logger

	roleFetch sync.Mutex
	mu        sync.Mutex
	calls     map[string]int
	total     int
	waits     int
	slowUntil time.Time
	paused    time.Time // every call waits until then (no budget left)
	budget    Budget
	share     budgetShare // our share of a budget other clients spend too
	aimd      *aimd       // the rate the 429s themselves allow (aimd.go)
	myself    *User
	statuses  map[string]string
	roles     map[string]roleCache // project key → membership
	idToKey   map[string]string
	keyToID   map[string]string
	// idsNotNumeric: the site refused a search comparing issue ids as
	// numbers (keycompare.go).
	idsNotNumeric bool
}

// positive replaces a zero or negative *v with def.
func positive[T int | int64 | float64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

func (o *Options) withDefaults() {
	positive(&o.RPS, DefaultRPS)
	positive(&o.Burst, DefaultBurst)
	positive(&o.Timeout, DefaultTimeout)
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	o.MaxRetries = max(o.MaxRetries, 0)
	positive(&o.MaxResponseBytes, DefaultMaxResponseBytes)
	positive(&o.BackoffBase, 500*time.Millisecond)
	positive(&o.BackoffMax, 30*time.Second)
	positive(&o.MaxRetryAfter, 2*time.Minute)
	positive(&o.CacheTTL, DefaultCacheTTL)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Sleep == nil {
		o.Sleep = httpx.Sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Int64N
	}
}

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	base, err := httpx.ParseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("jira: %w", err)
	}
	if opts.Token == "" {
		return nil, errors.New("jira: no API token configured (set the variable named by connection.token_env)")
	}
	opts.withDefaults()
	auth := "Bearer " + opts.Token
	redact.Add(opts.Token)
	if opts.Email != "" {
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(opts.Email+":"+opts.Token))
		redact.AddBasic(opts.Email, opts.Token)
	}
	c := &Client{
		base: base,
		auth: auth,
		retry: httpx.Retry{MaxAttempts: opts.MaxRetries + 1, Budget: opts.RetryBudget,
			BaseBackoff: opts.BackoffBase, MaxBackoff: opts.BackoffMax, MaxServerWait: opts.MaxRetryAfter,
			Rand: opts.Rand, Sleep: opts.Sleep, Now: opts.Now},
		limiter:  rate.NewLimiter(rate.Limit(opts.RPS), opts.Burst),
		rps:      opts.RPS,
		aimd:     newAIMD(opts.RPS),
		opts:     opts,
		log:      opts.Logger,
		calls:    map[string]int{},
		statuses: map[string]string{},
		roles:    map[string]roleCache{},
		idToKey:  map[string]string{},
		keyToID:  map[string]string{},
	}
	c.http = httpx.NewClient(httpx.Options{Transport: opts.Transport, Timeout: opts.Timeout,
		MaxBody: opts.MaxResponseBytes, Limiter: pacer{c}, Clock: opts.Clock})
	return c, nil
}

// Calls returns a copy of the request counts keyed by
// "METHOD /path/template STATUS" (status 0: no response).
func (c *Client) Calls() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}

// offset is how far Jira's clock runs ahead of the host's (Options.Clock;
// zero without one).
func (c *Client) offset() time.Duration {
	if c.opts.Clock == nil {
		return 0
	}
	return c.opts.Clock.Offset()
}

// siteNow is Jira's time: Options.Now corrected by the offset.
func (c *Client) siteNow() time.Time { return c.opts.Now().Add(c.offset()) }

// CallsTotal is the number of HTTP attempts made, retries included.
func (c *Client) CallsTotal() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// RateLimitWaits counts the times a call waited: for the client-side
// limiter, for a Retry-After, or for backoff after a 429.
func (c *Client) RateLimitWaits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waits
}

func (c *Client) record(endpoint string, status int, dur time.Duration) {
	c.mu.Lock()
	c.calls[fmt.Sprintf("%s %d", endpoint, status)]++
	c.total++
	c.mu.Unlock()
	c.log.Debug("jira request", "endpoint", endpoint, "status", status, "duration", dur)
	if c.opts.OnRequest != nil {
		c.opts.OnRequest(endpoint, status, dur)
	}
}

func (c *Client) countWait() {
	c.mu.Lock()
	c.waits++
	c.mu.Unlock()
}
