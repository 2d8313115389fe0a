package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// Class says what a failed call means for a retry.
type Class int

const (
	// Permanent: retrying cannot help; something must be fixed first.
	Permanent Class = iota
	// Retryable: the request had no effect (server error, rate limit,
	// connection never established) and may be sent again after Wait.
	Retryable
	// Ambiguous: the request was sent but no answer arrived; it may have
	// taken effect. Non-idempotent calls must not be retried.
	Ambiguous
)

func (c Class) String() string {
	switch c {
	case Retryable:
		return "retryable"
	case Ambiguous:
		return "ambiguous"
	default:
		return "permanent"
	}
}

// ErrAmbiguous is wrapped by every Failure of class Ambiguous, so callers
// can tell "maybe done" from "not done" with errors.Is.
var ErrAmbiguous = errors.New("request sent but no response received: it may have taken effect")

// Failure is a classified failed GitHub call.
type Failure struct {
	Class    Class
	Status   int           // HTTP status, 0 when no response arrived
	Message  string        // the server's message, if any
	Wait     time.Duration // server-requested wait (Retry-After, rate-limit reset)
	Attempts int           // how many requests were made
	Err      error         // the underlying error
}

func (f *Failure) Error() string {
	msg := f.Err.Error()
	if er, ok := f.Err.(*gogithub.ErrorResponse); ok {
		msg = errorResponseText(er)
	}
	if f.Attempts > 1 {
		msg += " (after " + strconv.Itoa(f.Attempts) + " attempts)"
	}
	return msg
}

// Unwrap exposes the underlying error and, for ambiguous failures,
// ErrAmbiguous.
func (f *Failure) Unwrap() []error {
	if f.Class == Ambiguous {
		return []error{f.Err, ErrAmbiguous}
	}
	return []error{f.Err}
}

// Refused reports whether the request certainly had no effect: GitHub
// (or what answered for it) declined it with a definite refusal
// (httpx.Refusal: a 4xx other than 408 and 429, rate limits excluded), or
// no connection was ever made. A write that failed any other way (a 5xx,
// an unanswered request, a 2xx whose body is not GitHub's) may have taken
// effect.
func (f *Failure) Refused() bool {
	switch f.Class {
	case Permanent:
		return httpx.Refusal(f.Status)
	case Retryable:
		return f.Status == 0 // Classify: no connection, nothing written
	}
	return false
}

// Policy configures Call. The zero value retries 4 times with capped
// exponential backoff from 1s to 30s and honours server waits up to 60s.
type Policy struct {
	MaxRetries  int           // retries after the first attempt; <0 means none
	BaseBackoff time.Duration // first backoff, doubled per retry
	MaxBackoff  time.Duration // cap for computed backoff
	MaxWait     time.Duration // longest server-requested wait honoured; longer gives up
	Budget      time.Duration // bounds the time spent retrying one call; zero: none
	// Idempotent allows retrying ambiguous failures (GET, cancel).
	Idempotent bool
	// Sleep waits d or until ctx ends; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, is told about every retry before its wait.
	OnRetry func(f *Failure, wait time.Duration)
}

func (p Policy) withDefaults() Policy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 4
	}
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.BaseBackoff <= 0 {
		p.BaseBackoff = time.Second
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 30 * time.Second
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 60 * time.Second
	}
	return p
}

// Call runs fn, retrying retryable failures under p. The retries happen
// in the client's HTTP stack (the httpx retry transport NewClient installs,
// with this call's policy), so fn must use a client built by NewClient. A
// 202 Accepted (go-github's AcceptedError) counts as success. The returned
// error is nil or a *Failure. A 2xx response whose body could not be
// decoded is returned as a Permanent failure carrying Status, never
// retried: the call took effect.
func Call(ctx context.Context, p Policy, fn func(ctx context.Context) (*gogithub.Response, error)) (*gogithub.Response, error) {
	p = p.withDefaults()
	st := &callState{idempotent: p.Idempotent}
	ov := &httpx.Override{Retry: httpx.Retry{MaxAttempts: p.MaxRetries + 1, Budget: p.Budget,
		BaseBackoff: p.BaseBackoff, MaxBackoff: p.MaxBackoff, MaxServerWait: p.MaxWait, Sleep: p.Sleep}}
	if p.OnRetry != nil {
		ov.Retry.OnRetry = func(i httpx.RetryInfo) {
			f := *st.last
			f.Attempts = i.Attempt
			p.OnRetry(&f, i.Wait)
		}
	}
	resp, err := fn(httpx.WithOverride(context.WithValue(ctx, callKey{}, st), ov))
	var accepted *gogithub.AcceptedError
	if err == nil || errors.As(err, &accepted) {
		return resp, nil
	}
	f := Classify(ctx, resp, err, st.sent)
	f.Attempts = max(ov.Result.Attempts, 1)
	switch ov.Result.Stop {
	case httpx.StopWaitTooLong:
		f.Err = fmt.Errorf("%w; GitHub asks to wait %s, longer than the %s this command waits: try again later", f.Err, ov.Result.Wait.Round(time.Second), p.MaxWait)
	case httpx.StopBudget:
		f.Err = fmt.Errorf("%w; gave up: the next retry would exceed the %s retry budget", f.Err, p.Budget)
	case httpx.StopInterrupted:
		f.Err = fmt.Errorf("%w; gave up waiting to retry: %v", f.Err, ov.Result.SleepErr)
	}
	return resp, f
}

// CallFor is Call for a call that answers a value: it returns the value
// fn answered on its last attempt with Call's answer.
func CallFor[T any](ctx context.Context, p Policy, fn func(ctx context.Context) (T, *gogithub.Response, error)) (T, *gogithub.Response, error) {
	var v T
	resp, err := Call(ctx, p, func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		v, resp, err = fn(ctx)
		return resp, err
	})
	return v, resp, err
}

// callState carries one Call's idempotency to the transport's classifier
// and its last verdict back.
type callState struct {
	idempotent bool
	sent       bool     // the last attempt was completely written
	last       *Failure // the last failed attempt
}

type callKey struct{}

// classifyAttempt is the retry transport's verdict on one attempt: the
// answer goes through go-github's own error mapping and then Classify, so
// the transport and Call judge a failure the same way. Requests made
// outside Call are never retried.
func classifyAttempt(req *http.Request, resp *http.Response, err error, sent bool) httpx.Outcome {
	st, _ := req.Context().Value(callKey{}).(*callState)
	if st == nil {
		return httpx.Outcome{}
	}
	var gresp *gogithub.Response
	if resp != nil {
		gresp = &gogithub.Response{Response: resp}
		var accepted *gogithub.AcceptedError
		if err = gogithub.CheckResponse(resp); err == nil || errors.As(err, &accepted) {
			return httpx.Outcome{}
		}
	}
	f := Classify(req.Context(), gresp, err, sent)
	st.sent, st.last = sent, f
	return httpx.Outcome{Retry: f.Class == Retryable || (f.Class == Ambiguous && st.idempotent),
		Wait: f.Wait, HasWait: f.Wait > 0, Reason: f.reason()}
}

// reason describes f for the retry log.
func (f *Failure) reason() string {
	if f.Status != 0 {
		return fmt.Sprintf("HTTP %d (%s)", f.Status, f.Class)
	}
	return f.Class.String() + ": " + redact.String(f.Err.Error())
}

// Classify maps a go-github result to a Failure. wrote says whether the
// request was completely written to the connection.
func Classify(ctx context.Context, resp *gogithub.Response, err error, wrote bool) *Failure {
	f := &Failure{Class: Permanent, Err: err}
	if resp != nil && resp.Response != nil {
		f.Status = resp.StatusCode
	}
	if st, ok := malformed(err); ok {
		f.Status = st // the call took effect; its answer cannot be used
		return f
	}
	var rl *gogithub.RateLimitError
	var abuse *gogithub.AbuseRateLimitError
	var er *gogithub.ErrorResponse
	switch {
	case errors.As(err, &rl):
		f.Class, f.Message = Retryable, rl.Message
		if !rl.Rate.Reset.IsZero() {
			f.Wait = max(rl.Rate.Reset.Sub(answeredAt(rl.Response)), 0) + time.Second
		}
		if ra := retryAfter(rl.Response); ra > 0 {
			f.Wait = ra
		}
	case errors.As(err, &abuse):
		f.Class, f.Message = Retryable, abuse.Message
		if abuse.RetryAfter != nil {
			f.Wait = max(*abuse.RetryAfter, 0)
		}
	case errors.As(err, &er):
		f.Message = er.Message
		st := 0
		if er.Response != nil {
			st = er.Response.StatusCode
		}
		f.Status = st
		ra := retryAfter(er.Response)
		switch {
		case st >= 500:
			f.Class, f.Wait = Retryable, ra
		case st == http.StatusTooManyRequests:
			f.Class, f.Wait = Retryable, ra
		case st == http.StatusForbidden && (ra > 0 || er.Response.Header.Get("X-Ratelimit-Remaining") == "0"):
			f.Class, f.Wait = Retryable, ra
		}
	case f.Status >= 200 && f.Status < 300:
		// The call took effect but its answer could not be read.
	case resp == nil || resp.Response == nil:
		switch {
		case ctx.Err() != nil && wrote:
			f.Class = Ambiguous
		case ctx.Err() != nil:
			f.Class = Permanent
		case wrote:
			f.Class = Ambiguous
		default:
			f.Class = Retryable
		}
	}
	return f
}

func retryAfter(r *http.Response) time.Duration {
	if r == nil {
		return 0
	}
	d, _ := httpx.RetryAfter(r.Header.Get("Retry-After"), answeredAt(r))
	return d
}

// answeredAt is the time of the answer on GitHub's clock (its Date
// header), against which GitHub's own times (a rate limit's reset, a
// Retry-After date) are measured, whatever the host's clock says; without
// a Date, the host's clock.
func answeredAt(r *http.Response) time.Time {
	if r != nil {
		if t, err := http.ParseTime(r.Header.Get("Date")); err == nil {
			return t
		}
	}
	return time.Now()
}

// errorResponseText renders a GitHub error answer as "METHOD URL: HTTP
// status: message (details)", leaving out what GitHub did not send (go-github
// would print "401  []") and the query string.
func errorResponseText(er *gogithub.ErrorResponse) string {
	var b strings.Builder
	if r := er.Response; r != nil {
		if q := r.Request; q != nil && q.URL != nil {
			fmt.Fprintf(&b, "%s %s://%s%s: ", q.Method, q.URL.Scheme, q.URL.Host, q.URL.EscapedPath())
		}
		fmt.Fprintf(&b, "HTTP %d", r.StatusCode)
	}
	if er.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(er.Message)
	}
	if len(er.Errors) > 0 {
		fmt.Fprintf(&b, " %+v", er.Errors)
	}
	return b.String()
}
