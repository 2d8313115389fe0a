package gitlab

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/httpx/httpxtest"
)

// answers is a GitLab stand-in answering every request the same way
// (httpxtest.Canned), and a real client of NewClient pointed at it.
type answers struct {
	*httpxtest.Canned
	c *gl.Client
}

func newAnswers(tb testing.TB) *answers {
	tb.Helper()
	a := &answers{Canned: httpxtest.NewCanned(tb)}
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	c, err := NewClient(Options{APIURL: a.URL, Token: "secret-token", MaxRetries: -1, Timeout: 5 * time.Second, Transport: tr})
	if err != nil {
		tb.Fatal(err)
	}
	a.c = c
	return a
}

func names() []string {
	var out []string
	for n := range calls {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// routed is the route the transport matched for the one request a call
// made.
func routed(t *testing.T, a *answers, name string) route {
	t.Helper()
	seen := a.Seen()
	if len(seen) != 1 {
		t.Fatalf("%s: requests %q, want one", name, seen)
	}
	method, p, _ := strings.Cut(seen[0], " ")
	r, ok := routeOf(method, "/api/v4/", p)
	if !ok {
		t.Fatalf("%s: %s %s has no route in answers.go", name, method, p)
	}
	return r
}

// TestAnswerRoutes: every call the project makes is routed, to the type
// client-go decodes its answer into, and a well-formed answer decodes.
func TestAnswerRoutes(t *testing.T) {
	a, ctx := newAnswers(t), context.Background()
	for _, name := range names() {
		a.Set(200, "{}")
		_, _ = calls[name](ctx, a.c)
		r := routed(t, a, name)
		body := `{"id":1,"iid":7,"labels":["a"]}`
		if r.typ.Kind() == reflect.Slice {
			body = `[` + body + `,{"id":2,"iid":8}]`
		}
		a.Set(200, body)
		v, err := calls[name](ctx, a.c)
		if err != nil {
			t.Errorf("%s: well-formed answer: %v", name, err)
			continue
		}
		want := r.typ
		if want.Kind() != reflect.Slice {
			want = reflect.PointerTo(want)
		}
		if got := reflect.TypeOf(v); got != want {
			t.Errorf("%s decodes into %v; answers.go checks its answers as %v", name, got, r.typ)
		}
	}
}

// TestMalformedAnswers: an answer client-go's decoders panic on, or that
// would hand the caller a nil element, fails that one call with an
// ErrMalformed, and the client keeps working.
func TestMalformedAnswers(t *testing.T) {
	a, ctx := newAnswers(t), context.Background()
	everyCall := []struct{ name, body string }{
		{"null", `null`},
		{"a null element", `[null]`},
		{"a null element after a good one", `[{"id":1},null]`},
		{"a string", `"x"`},
	}
	for _, name := range names() {
		for _, b := range everyCall {
			a.Set(200, b.body)
			if _, err := calls[name](ctx, a.c); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s answered %s: err = %v, want ErrMalformed", name, b.name, err)
			}
		}
		// The other kind of body: an object for a listing, a listing for
		// an object.
		a.Set(200, "{}")
		_, _ = calls[name](ctx, a.c)
		other := "[]"
		if routed(t, a, name).typ.Kind() == reflect.Slice {
			other = "{}"
		}
		a.Set(200, other)
		if _, err := calls[name](ctx, a.c); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s answered %s: err = %v, want ErrMalformed", name, other, err)
		}
		for _, h := range [][]string{{"Link", `<https://gitlab.example/api/v4/x?page=2>; rel`}, {"RateLimit-Limit", "1e300"}, {"RateLimit-Limit", "0.001"}} {
			a.Set(200, "{}", h...)
			if _, err := calls[name](ctx, a.c); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s answered %s: %s: err = %v, want ErrMalformed", name, h[0], h[1], err)
			}
		}
	}
	panics := []struct{ call, name, body string }{
		{"Issues.ListProjectIssues", "an issue without id", `[{"iid":1}]`},
		{"Issues.ListProjectIssues", "labels mixing objects and strings", `[{"id":1,"iid":1,"labels":[{"name":"a"},"b"]}]`},
		{"Issues.ListProjectIssues", "a good issue, then one without id", `[{"id":1,"iid":1},{"iid":2}]`},
		{"Issues.GetIssue", "an issue without id", `{"iid":1}`},
		{"Issues.GetIssue", "labels mixing objects and strings", `{"id":1,"labels":[{"name":"a"},"b"]}`},
		{"MergeRequests.GetMergeRequest", "labels mixing objects and strings", `{"id":1,"labels":[{"name":"a"},7]}`},
	}
	for _, p := range panics {
		a.Set(200, p.body)
		_, err := calls[p.call](ctx, a.c)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s answered %s: err = %v, want ErrMalformed", p.call, p.name, err)
		} else if strings.Contains(err.Error(), "secret-token") {
			t.Errorf("%s: the error shows the token: %v", p.call, err)
		}
		var me *MalformedError
		if errors.As(err, &me) && Refused(err) {
			t.Errorf("%s: a malformed answer counts as a refusal", p.call)
		}
	}
	a.Set(200, `[{"id":1,"iid":1,"labels":["a"]}]`)
	if is, err := calls["Issues.ListProjectIssues"](ctx, a.c); err != nil || len(is.([]*gl.Issue)) != 1 {
		t.Fatalf("after malformed answers a good one gives %v, %v", is, err)
	}
}

// FuzzAnswers drives every client-go call the project makes through a
// real client against a server answering the fuzzed status, body and
// Link header: no call panics, and a call that succeeds hands over no
// nil element.
func FuzzAnswers(f *testing.F) {
	for _, s := range []string{
		`[{"iid":1}]`, `{"iid":1}`, `[{"id":"x","iid":1}]`,
		`[{"id":1,"labels":[{"name":"a"},"b"]}]`, `{"id":1,"labels":[{"name":"a"},"b"]}`,
		`[{"id":1,"labels":[{"name":"a"},{"title":"b"}]}]`, `[{"id":1,"labels":["a",{"name":"b"}]}]`,
		`null`, `[null]`, `[{"id":1},null]`, `{}`, `[]`, `"x"`, `7`, `{"id":1} trailing`,
		`{"message":{"base":["x"]}}`, `[[[[[[[[[[]]]]]]]]]]`,
	} {
		f.Add(uint8(0), []byte(s), "")
	}
	f.Add(uint8(0), []byte(`[]`), `<https://gitlab.example/api/v4/x?page=2>; rel`)
	f.Add(uint8(0), []byte(`[]`), `<https://gitlab.example/api/v4/x?page=2>; rel="next", <x>`)
	f.Add(uint8(4), []byte(`{"message":[["a"],{"b":null}]}`), "")
	a, ctx := newAnswers(f), context.Background()
	statuses := []int{200, 201, 204, 304, 400, 404, 422, 409}
	f.Fuzz(func(t *testing.T, status uint8, body []byte, link string) {
		if strings.ContainsAny(link, "\r\n\x00") {
			return // not a header value
		}
		a.Set(statuses[int(status)%len(statuses)], string(body), "Link", link)
		for _, name := range names() {
			v, err := calls[name](ctx, a.c)
			if err != nil {
				continue
			}
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
				for i := range rv.Len() {
					if rv.Index(i).IsNil() {
						t.Fatalf("%s: element %d of a successful listing is nil", name, i)
					}
				}
			}
		}
	})
}
