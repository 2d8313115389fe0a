package githubpoll

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// condCache remembers, per listing URL, the ETag of its first page and
// the items of all its pages, in memory: a listing whose first page
// answers 304 Not Modified (free on GitHub's rate limit) is taken from
// here. A process that starts has an empty cache.
type condCache struct {
	mu      sync.Mutex
	entries map[string]condEntry
}

type condEntry struct {
	etag  string
	items []json.RawMessage
}

func (c *condCache) get(u string) (condEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[u]
	return e, ok
}

// reset forgets every answer.
func (c *condCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[string]condEntry{}
}

func (c *condCache) put(u string, e condEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[u] = e
}

// listing reads the JSON array at u (a path with query, relative to the
// API base) and the pages its Link header names, while more accepts the
// last page read. The first page is asked with If-None-Match; on 304 the
// remembered items are returned and changed is false. wrap, when set,
// names the field of an object answer that holds the array
// ("workflow_runs").
func (p *Poller) listing(ctx context.Context, u, wrap string, more func([]json.RawMessage) bool) (items []json.RawMessage, changed bool, err error) {
	prev, cached := p.cache.get(u)
	next, etag := u, ""
	for page := 0; page < maxPages && next != ""; page++ {
		cond := ""
		if page == 0 && cached {
			cond = prev.etag
		}
		got, resp, err := p.getPage(ctx, next, cond, wrap)
		var f *github.Failure
		if page == 0 && cached && errors.As(err, &f) && f.Status == http.StatusNotModified {
			return prev.items, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if page == 0 {
			etag = resp.Header.Get("ETag")
			p.fetched.Add(1)
		}
		items = append(items, got...)
		next = ""
		if resp.NextPage != 0 {
			next = withPage(u, resp.NextPage)
		}
		if more != nil && !more(got) {
			break
		}
	}
	if etag != "" {
		p.cache.put(u, condEntry{etag: etag, items: items})
	}
	return items, true, nil
}

// fetchedCount is how many listings GitHub answered with content (not
// 304) since the poller started.
func (p *Poller) fetchedCount() int { return int(p.fetched.Load()) }

// withPage is u asking for page n.
func withPage(u string, n int) string {
	path, query, _ := strings.Cut(u, "?")
	q, _ := url.ParseQuery(query)
	q.Set("page", strconv.Itoa(n))
	return path + "?" + q.Encode()
}

// getPage GETs one page; cond, when set, is sent as If-None-Match.
func (p *Poller) getPage(ctx context.Context, u, cond, wrap string) ([]json.RawMessage, *gogithub.Response, error) {
	var raw json.RawMessage
	resp, err := github.Call(ctx, p.policy, func(ctx context.Context) (*gogithub.Response, error) {
		req, err := p.o.Client.NewRequest(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if cond != "" {
			req.Header.Set("If-None-Match", cond)
		}
		return p.o.Client.Do(req, &raw)
	})
	if err != nil {
		return nil, resp, err
	}
	if wrap != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, resp, err
		}
		raw = obj[wrap]
	}
	var items []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, resp, err
		}
	}
	return items, resp, nil
}

// decode decodes raw items into T.
func decode[T any](raw []json.RawMessage) ([]*T, error) {
	out := make([]*T, 0, len(raw))
	for _, r := range raw {
		v := new(T)
		if err := json.Unmarshal(r, v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
