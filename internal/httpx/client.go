package httpx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Options configure the client NewClient builds. The zero value is usable:
// no timeout, no body cap, no retry.
type Options struct {
	// Transport is the innermost round tripper; nil means DefaultTransport().
	Transport http.RoundTripper
	// Timeout bounds each attempt (headers and body), not the retries.
	Timeout time.Duration
	// MaxBody caps every response body; reading past it fails with a
	// *TooLargeError.
	MaxBody int64
	// Limiter, when set, paces every attempt (retries included);
	// *rate.Limiter (golang.org/x/time/rate) satisfies it.
	Limiter Limiter
	// Retry, when set, retries what Classify allows under its policy.
	// Request bodies must be replayable (http.NewRequest sets GetBody for
	// the usual readers); others are never retried.
	Retry    *Retry
	Classify Classifier
	// Clock, when set, observes the Date of every attempt's answer: it is
	// the service's clock (package trackerclock).
	Clock *trackerclock.Clock
}

// Limiter waits until a request may be made or ctx ends.
type Limiter interface {
	Wait(ctx context.Context) error
}

// Classifier is a forge's verdict on one attempt made by the transport:
// err is the transport error, else resp is the answer; sent says whether
// the request was completely written (a request that was sent may have
// taken effect although no answer came). An Outcome with Retry set makes
// the transport ask again.
type Classifier func(req *http.Request, resp *http.Response, err error, sent bool) Outcome

// MaxRedirects bounds the redirects NewClient follows.
const MaxRedirects = 5

// ErrCrossOriginRedirect is returned (wrapped in a *url.Error) when a server
// redirects to another origin.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused")

// MaxIdleConnsPerHost is how many idle connections per host the default
// transport keeps. http.DefaultTransport keeps 2, fewer than the parallel
// calls a poller makes (concurrency, default 4), so connections would be
// closed and reopened (TLS handshakes included) all the time.
const MaxIdleConnsPerHost = 32

// defaultTransport is shared by every client built without a transport, so
// they share one connection pool.
var defaultTransport = sync.OnceValue(func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	if t.MaxIdleConns > 0 && t.MaxIdleConns < MaxIdleConnsPerHost {
		t.MaxIdleConns = MaxIdleConnsPerHost
	}
	return t
})

// DefaultTransport returns the transport NewClient uses when given none: a
// clone of http.DefaultTransport (proxy settings, timeouts, HTTP/2) that
// keeps up to MaxIdleConnsPerHost idle connections per host.
func DefaultTransport() http.RoundTripper { return defaultTransport() }

// NewClient returns the one HTTP client stack of fullsend: from the outside
// in, retries (Options.Retry), the rate limiter, redaction of registered secrets from error
// answers and transport errors, the per-attempt timeout and body cap, then
// the service's clock (Options.Clock) observing every answer.
// It follows at most MaxRedirects redirects, all within the original
// origin. Base URLs are checked beforehand with ParseURL.
func NewClient(o Options) *http.Client {
	next := o.Transport
	if next == nil {
		next = DefaultTransport()
	}
	if o.Clock != nil {
		next = o.Clock.Transport(next)
	}
	var rt http.RoundTripper = redactTransport{next: boundTransport{next: next, max: o.MaxBody, timeout: o.Timeout}}
	if o.Limiter != nil {
		rt = limitTransport{next: rt, lim: o.Limiter}
	}
	if o.Retry != nil {
		rt = RetryTransport(rt, *o.Retry, o.Classify)
	}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", MaxRedirects)
	}
	if !SameOrigin(req.URL, via[0].URL) {
		return fmt.Errorf("%w (to %s://%s)", ErrCrossOriginRedirect, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// limitTransport waits for the limiter before each attempt.
type limitTransport struct {
	next http.RoundTripper
	lim  Limiter
}

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.lim.Wait(req.Context()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections forwards to the wrapped transport.
func (t limitTransport) CloseIdleConnections() { CloseIdle(t.next) }
