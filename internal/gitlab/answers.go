package gitlab

// Answer checks.
//
// client-go decodes GitLab's answers with decoders of its own, and some of
// them panic on input GitLab does not send but a proxy, a broken upgrade
// or a hostile server can: Issue.UnmarshalJSON on an issue without "id",
// Issue's and MergeRequest's on a label list mixing objects and strings,
// and the Link header parser of every answer on a link without "=". A
// listing may also hold null elements, which reach the callers as nil
// pointers. So before client-go sees an answer, the client's outermost
// transport (answerCheck) reads it and rejects, as an error of that one
// request (*MalformedError, ErrMalformed), what client-go or its callers
// cannot take:
//
//   - a success body (the statuses client-go decodes) that is not what the
//     route's call decodes: not an object for an object, not an array of
//     objects for a listing (no null element), or one whose decode into
//     the very type client-go decodes it into fails or panics (recovered
//     here; the type is the route's, routes below);
//   - a Link header client-go cannot parse, and a RateLimit-Limit header
//     that would set client-go's limiter to a rate it cannot keep (a
//     burst overflowing, a request per day), which would fail or stall
//     every later call of the client.
//
// A route not listed gets the checks that need no type (object or array
// of objects, headers). Every call the project makes is listed: the
// package's tests drive each through a real client against answers of
// every shape (FuzzAnswers) and fail on a call of client-go outside
// their table.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// ErrMalformed is what every *MalformedError is (errors.Is).
var ErrMalformed = errors.New("malformed GitLab answer")

// MalformedError is an answer the client refused to decode: the request
// fails with it, and nothing of the answer reaches the caller. A write
// answered this way may have taken effect (Refused is false).
type MalformedError struct {
	Method, Route string // the request's method and the route it matched (the path when none)
	Status        int
	Reason        string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("malformed GitLab answer to %s %s (status %d): %s", e.Method, e.Route, e.Status, e.Reason)
}

// Is makes errors.Is(err, ErrMalformed) hold.
func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

// route is one endpoint the project calls: its method, its path under
// the API base ("*" is one segment) and the type client-go decodes its
// answer into.
type route struct {
	method, path string
	typ          reflect.Type
}

func object[T any]() reflect.Type  { return reflect.TypeFor[T]() }
func listing[T any]() reflect.Type { return reflect.TypeFor[[]*T]() }

// routes are the endpoints of every client-go call the project makes.
var routes = []route{
	{"GET", "user", object[gl.User]()},
	{"GET", "users/*", object[gl.User]()},
	{"GET", "version", object[gl.Version]()},
	{"GET", "projects/*", object[gl.Project]()},
	{"GET", "projects/*/members/all/*", object[gl.ProjectMember]()},
	{"GET", "projects/*/issues", listing[gl.Issue]()},
	{"GET", "projects/*/issues/*", object[gl.Issue]()},
	{"GET", "projects/*/merge_requests", listing[gl.BasicMergeRequest]()},
	{"GET", "projects/*/merge_requests/*", object[gl.MergeRequest]()},
	{"GET", "projects/*/*/*/notes", listing[gl.Note]()},
	{"POST", "projects/*/*/*/notes", object[gl.Note]()},
	{"GET", "projects/*/*/*/notes/*", object[gl.Note]()},
	{"GET", "projects/*/*/*/resource_label_events", listing[gl.LabelEvent]()},
	{"GET", "projects/*/*/*/resource_state_events", listing[gl.StateEvent]()},
	{"GET", "projects/*/*/*/award_emoji", listing[gl.AwardEmoji]()},
	{"POST", "projects/*/*/*/award_emoji", object[gl.AwardEmoji]()},
	{"GET", "projects/*/*/*/notes/*/award_emoji", listing[gl.AwardEmoji]()},
	{"POST", "projects/*/*/*/notes/*/award_emoji", object[gl.AwardEmoji]()},
	{"GET", "projects/*/pipelines", listing[gl.PipelineInfo]()},
	{"POST", "projects/*/pipeline", object[gl.Pipeline]()},
	{"GET", "projects/*/pipelines/*", object[gl.Pipeline]()},
	{"POST", "projects/*/pipelines/*/cancel", object[gl.Pipeline]()},
	{"GET", "projects/*/pipelines/*/variables", listing[gl.PipelineVariable]()},
	{"GET", "projects/*/pipelines/*/jobs", listing[gl.Job]()},
	{"GET", "projects/*/resource_groups/*", object[gl.ResourceGroup]()},
	{"PUT", "projects/*/resource_groups/*", object[gl.ResourceGroup]()},
}

// match reports whether the path segments segs are r's.
func (r route) match(method string, segs []string) bool {
	want := strings.Split(r.path, "/")
	if method != r.method || len(want) != len(segs) {
		return false
	}
	for i, w := range want {
		if w != "*" && w != segs[i] {
			return false
		}
	}
	return true
}

// routeOf is the route of a request for escaped path p under base (the
// API base's escaped path, ending in "/"), if one is listed.
func routeOf(method, base, p string) (route, bool) {
	rest, ok := strings.CutPrefix(p, base)
	if !ok {
		return route{}, false
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	for _, r := range routes {
		if r.match(method, segs) {
			return r, true
		}
	}
	return route{}, false
}

// answerCheck is the transport that checks every answer before client-go
// decodes it (see the top of this file).
type answerCheck struct {
	next http.RoundTripper
	base string // the API base's escaped path, ending in "/"
}

func (t answerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	r, known := routeOf(req.Method, t.base, req.URL.EscapedPath())
	name := req.URL.EscapedPath()
	if known {
		name = r.path
	}
	reject := func(reason string) (*http.Response, error) {
		_ = resp.Body.Close()
		return nil, &MalformedError{Method: req.Method, Route: name, Status: resp.StatusCode, Reason: reason}
	}
	if reason := checkHeaders(resp.Header); reason != "" {
		return reject(reason)
	}
	if !decoded(resp.StatusCode) || resp.Body == nil {
		return resp, nil
	}
	body, err := httpx.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return resp, nil // client-go's own decode fails on it (EOF)
	}
	var typ reflect.Type
	if known {
		typ = r.typ
	}
	if reason := checkBody(body, typ); reason != "" {
		return reject(reason)
	}
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t answerCheck) CloseIdleConnections() { httpx.CloseIdle(t.next) }

// decoded reports whether client-go decodes a body of status s
// (gl.CheckResponse's successes).
func decoded(s int) bool {
	switch s {
	case 200, 201, 202, 204, 304:
		return true
	}
	return false
}

// checkBody is why body cannot be decoded as typ (nil: any object or
// array of objects), or "".
func checkBody(body []byte, typ reflect.Type) string {
	first := bytes.TrimSpace(body)[0]
	switch list := typ != nil && typ.Kind() == reflect.Slice; {
	case typ == nil && first != '{' && first != '[':
		return "not a JSON object or array"
	case typ != nil && !list && first != '{':
		return "not a JSON object"
	case list && first != '[':
		return "not a JSON array"
	}
	if first == '[' {
		var elems []json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&elems); err != nil {
			return err.Error()
		}
		for i, e := range elems {
			if len(e) == 0 || e[0] != '{' {
				return fmt.Sprintf("element %d is not a JSON object", i)
			}
		}
	}
	if typ == nil {
		return ""
	}
	return trialDecode(body, typ)
}

// trialDecode decodes body into a new typ as client-go does (the first
// JSON value of the body), and reports why it failed or panicked.
func trialDecode(body []byte, typ reflect.Type) (reason string) {
	defer func() {
		if r := recover(); r != nil {
			reason = fmt.Sprintf("the client's decoder of %s failed (%v)", typ, r)
		}
	}()
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(reflect.New(typ).Interface()); err != nil {
		return err.Error()
	}
	return ""
}

// maxRateLimit bounds the RateLimit-Limit (requests per minute) client-go
// may size its limiter from: GitLab's own limits are in the thousands.
const maxRateLimit = 1 << 30

// checkHeaders is why client-go cannot read h safely, or "".
func checkHeaders(h http.Header) string {
	if link := h.Get("Link"); link != "" {
		for l := range strings.SplitSeq(link, ",") {
			// client-go splits each link at ";" and its second part at "=",
			// and indexes the result.
			if parts := strings.Split(l, ";"); len(parts) >= 2 && !strings.Contains(parts[1], "=") {
				return "a Link header without rel=…"
			}
		}
	}
	if v := h.Get("RateLimit-Limit"); v != "" {
		// client-go sizes its limiter from any positive number.
		if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 && (n < 1 || n > maxRateLimit || math.IsInf(n, 0)) {
			return "a RateLimit-Limit header out of range"
		}
	}
	return ""
}
