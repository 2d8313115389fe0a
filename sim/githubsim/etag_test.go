package githubsim

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// get sends a GET with extra headers; a transport failure is a test error
// and status 0.
func get(t *testing.T, u string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil { // t.Error, not t.Fatal: get also runs in goroutines
		t.Error(err)
		return 0, http.Header{}, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func TestConditionalRequests(t *testing.T) {
	s, u, c := startClocked(t)
	world(t, s, c)
	list := u + "repos/acme/platform/issues?state=all&since=2026-03-01T10:00:00Z"
	one := u + "repos/acme/platform/issues/1"
	code, h, _ := get(t, list, nil)
	tag := h.Get("ETag")
	if code != 200 || !regexp.MustCompile(`^W/"[0-9a-f]{32}"$`).MatchString(tag) {
		t.Fatalf("first list: %d, ETag %q", code, tag)
	}
	_, oh, _ := get(t, one, nil)
	lm := oh.Get("Last-Modified")
	lmTime, err := http.ParseTime(lm)
	if err != nil || !lmTime.Equal(newClock().Now().Add(4*time.Minute)) {
		t.Fatalf("Last-Modified %q: %v", lm, err)
	}
	cases := []struct {
		name string
		url  string
		hdr  map[string]string
		want int
	}{
		{"matching tag", list, map[string]string{"If-None-Match": tag}, 304},
		{"tag in a list", list, map[string]string{"If-None-Match": `W/"00", ` + tag}, 304},
		{"strong form of the weak tag", list, map[string]string{"If-None-Match": tag[2:]}, 304},
		{"star", list, map[string]string{"If-None-Match": "*"}, 304},
		{"stale tag", list, map[string]string{"If-None-Match": `W/"00"`}, 200},
		{"other page", list + "&per_page=1", map[string]string{"If-None-Match": tag}, 200},
		{"not modified since", one, map[string]string{"If-Modified-Since": lm}, 304},
		{"modified since", one, map[string]string{"If-Modified-Since": lmTime.Add(-time.Second).Format(http.TimeFormat)}, 200},
		{"If-None-Match decides alone", one, map[string]string{"If-None-Match": `W/"00"`, "If-Modified-Since": lm}, 200},
		{"lists have no Last-Modified", list, map[string]string{"If-Modified-Since": lm}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req0, n304, pts := s.Requests(), s.NotModified(), s.RatePointsUsed()
			_, before, _ := get(t, u+"rate_limit", nil) // costs no point
			code, h, body := get(t, tc.url, tc.hdr)
			if code != tc.want {
				t.Fatalf("status %d, want %d", code, tc.want)
			}
			used, _ := strconv.Atoi(before.Get("X-RateLimit-Used"))
			wantUsed, wantPts, want304 := used+1, pts+1, n304
			if code == 304 {
				wantUsed, wantPts, want304 = used, pts, n304+1
				if body != "" || h.Get("ETag") == "" {
					t.Fatalf("304 with body %q, ETag %q", body, h.Get("ETag"))
				}
			}
			if got, _ := strconv.Atoi(h.Get("X-RateLimit-Used")); got != wantUsed {
				t.Errorf("x-ratelimit-used %d, want %d", got, wantUsed)
			}
			if got, _ := strconv.Atoi(h.Get("X-RateLimit-Remaining")); got != 5000-wantUsed {
				t.Errorf("x-ratelimit-remaining %d, want %d", got, 5000-wantUsed)
			}
			if s.RatePointsUsed() != wantPts || s.NotModified() != want304 || s.Requests() != req0+2 {
				t.Errorf("points %d (want %d), 304s %d (want %d), requests %d (want %d)",
					s.RatePointsUsed(), wantPts, s.NotModified(), want304, s.Requests(), req0+2)
			}
		})
	}

	// A change makes the old tag stale; the new one matches again.
	c.Advance(time.Minute)
	if _, _, err := s.AddComment(repo, 1, "dan", "more"); err != nil {
		t.Fatal(err)
	}
	code, h, _ = get(t, list, map[string]string{"If-None-Match": tag})
	if code != 200 || h.Get("ETag") == tag {
		t.Fatalf("after a change: %d, ETag %q (old %q)", code, h.Get("ETag"), tag)
	}
	if code, _, _ := get(t, list, map[string]string{"If-None-Match": h.Get("ETag")}); code != 304 {
		t.Fatalf("new tag: %d", code)
	}
	if code, _, _ := get(t, one, map[string]string{"If-Modified-Since": lm}); code != 200 {
		t.Fatalf("issue 1 changed since %s: %d", lm, code)
	}

	// Faults apply before the validators.
	s.Inject(Fault{Endpoint: EndpointListIssues, Status: 502})
	if code, _, _ := get(t, list, map[string]string{"If-None-Match": "*"}); code != 502 {
		t.Fatalf("fault: %d", code)
	}
}

// parseLinks reads a Link header into rel -> URL.
func parseLinks(t *testing.T, h string) map[string]*url.URL {
	t.Helper()
	out := map[string]*url.URL{}
	for _, m := range regexp.MustCompile(`<([^>]+)>; rel="(\w+)"`).FindAllStringSubmatch(h, -1) {
		u, err := url.Parse(m[1])
		if err != nil || !u.IsAbs() {
			t.Fatalf("link %q: %v", m[1], err)
		}
		out[m[2]] = u
	}
	return out
}

func TestLinkPaging(t *testing.T) {
	s, u, c := startClocked(t)
	for i := range 7 {
		if _, _, err := s.OpenIssue(repo, IssueSpec{Title: strconv.Itoa(i), Author: "a"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AddComment(repo, i+1, "b", "c"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetLabel(repo, i+1, "b", "x", true); err != nil {
			t.Fatal(err)
		}
		if code, _, body := do(t, http.MethodPost, u+"repos/acme/platform/actions/workflows/run.yml/dispatches", tok, `{"ref":"trunk"}`); code != 204 {
			t.Fatalf("dispatch: %d %s", code, body)
		}
		c.Advance(time.Second)
	}
	for _, path := range []string{"issues?state=all&direction=asc", "issues/comments?sort=created&direction=asc", "issues/events",
		"actions/runs", "actions/workflows/run.yml/runs?status=queued"} {
		t.Run(path, func(t *testing.T) {
			next := u + "repos/acme/platform/" + path + "&per_page=3"
			if !regexp.MustCompile(`\?`).MatchString(path) {
				next = u + "repos/acme/platform/" + path + "?per_page=3"
			}
			var pages []map[string]*url.URL
			for next != "" {
				code, h, _ := get(t, next, nil)
				if code != 200 {
					t.Fatalf("%s: %d", next, code)
				}
				links := parseLinks(t, h.Get("Link"))
				pages = append(pages, links)
				next = ""
				if n := links["next"]; n != nil {
					if n.Query().Get("per_page") != "3" {
						t.Fatalf("next link lost per_page: %s", n)
					}
					next = n.String()
				}
				if len(pages) > 5 {
					t.Fatal("too many pages")
				}
			}
			if len(pages) != 3 {
				t.Fatalf("%d pages, want 3", len(pages))
			}
			rels := func(m map[string]*url.URL) []string {
				var out []string
				for k := range m {
					out = append(out, k)
				}
				slices.Sort(out)
				return out
			}
			for i, want := range [][]string{{"last", "next"}, {"first", "last", "next", "prev"}, {"first", "prev"}} {
				if got := rels(pages[i]); !slices.Equal(got, want) {
					t.Errorf("page %d rels %v, want %v", i+1, got, want)
				}
			}
			if got := pages[0]["last"].Query().Get("page"); got != "3" {
				t.Errorf("last page %s", got)
			}
		})
	}
}

func TestPerPageClamp(t *testing.T) {
	s, u, _ := startClocked(t)
	for range 105 {
		if _, _, err := s.OpenIssue(repo, IssueSpec{Author: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		query string
		want  int
		code  int
	}{
		{"", 30, 200}, {"per_page=500", 100, 200}, {"per_page=0", 30, 200}, {"per_page=x", 30, 200},
		{"per_page=100&page=2", 5, 200}, {"page=99", 0, 200},
		{"since=yesterday", 0, 422}, {"state=merged", 0, 422}, {"sort=size", 0, 422}, {"direction=up", 0, 422},
	}
	for _, tc := range cases {
		code, _, body := get(t, u+"repos/acme/platform/issues?"+tc.query, nil)
		if code != tc.code {
			t.Errorf("%s: %d %s", tc.query, code, body)
			continue
		}
		if code == 200 {
			if n := len(regexp.MustCompile(`"number":`).FindAllString(body, -1)); n != tc.want {
				t.Errorf("%s: %d items, want %d", tc.query, n, tc.want)
			}
		}
	}
}

// TestConcurrentMutationAndListing runs changes and paged listings at once
// (for -race) and then checks that nothing was lost.
func TestConcurrentMutationAndListing(t *testing.T) {
	s, u, c := startClocked(t)
	n := must(s.OpenIssue(repo, IssueSpec{Title: "busy", Author: "a", PullRequest: true}))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				c.Advance(time.Second)
				if _, _, err := s.AddComment(repo, n, "user"+strconv.Itoa(w), strconv.Itoa(i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				for _, p := range []string{"issues?state=all", "issues/comments?per_page=7&page=2", "pulls/1/reviews", "issues/events"} {
					if code, _, body := get(t, u+"repos/acme/platform/"+p, nil); code != 200 {
						t.Errorf("%s: %d %s", p, code, body)
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 10 {
			if _, _, err := s.SubmitReview(repo, n, "rev", "COMMENTED", strconv.Itoa(i)); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	code, _, body := get(t, u+"repos/acme/platform/issues/comments?per_page=100", nil)
	if got := len(regexp.MustCompile(`"issue_url"`).FindAllString(body, -1)); code != 200 || got != 100 {
		t.Fatalf("comments after the race: %d, %d", code, got)
	}
}
