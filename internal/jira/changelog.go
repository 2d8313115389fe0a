package jira

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Bulk changelog limits (Jira Cloud).
const (
	MaxBulkChangelogIssues = 1000
	maxBulkFieldIDs        = 10
	bulkPageSize           = 1000
)

type bulkChangelogRequest struct {
	IssueIDsOrKeys []string `json:"issueIdsOrKeys"`
	FieldIDs       []string `json:"fieldIds,omitempty"`
	MaxResults     int      `json:"maxResults,omitempty"`
	NextPageToken  string   `json:"nextPageToken,omitempty"`
}

type bulkChangelogResponse struct {
	IssueChangeLogs []struct {
		IssueID         string    `json:"issueId"`
		ChangeHistories []History `json:"changeHistories"`
	} `json:"issueChangeLogs"`
	NextPageToken string `json:"nextPageToken"`
}

// BulkChangelogs fetches the changelogs of many issues at once (POST
// /rest/api/3/changelog/bulkfetch), keyed by issue key, oldest history
// first; fieldIDs filters histories when non-empty. Jira answers with issue ids; the client
// maps them back to the keys asked for using ids learned from earlier
// searches, and resolves unknown keys with one `key in (…)` search per
// chunk. Keys Jira does not know are absent from the result. More than
// 1000 keys are fetched in chunks; more than 10 field ids are filtered on
// the client side.
func (c *Client) BulkChangelogs(ctx context.Context, issueKeys []string, fieldIDs []string) (map[string][]History, error) {
	out := make(map[string][]History, len(issueKeys))
	keys := dedupe(issueKeys)
	if len(keys) == 0 {
		return out, nil
	}
	keys, asked, fallback, err := c.resolveIDs(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, k := range fallback {
		hs, err := c.Changelog(ctx, k)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[k] = hs
	}
	serverFilter := fieldIDs
	if len(fieldIDs) > maxBulkFieldIDs {
		serverFilter = nil
	}
	for start := 0; start < len(keys); start += MaxBulkChangelogIssues {
		end := min(start+MaxBulkChangelogIssues, len(keys))
		if err := c.bulkChunk(ctx, keys[start:end], asked, serverFilter, out); err != nil {
			return nil, err
		}
	}
	for k, hs := range out {
		out[k] = filterFields(sortHistories(hs), fieldIDs)
	}
	return out, nil
}

// bulkChunk fetches the changelogs of keys; asked maps the issue ids Jira
// answers with (and the keys themselves) to the keys asked for.
func (c *Client) bulkChunk(ctx context.Context, keys []string, asked map[string]string, fieldIDs []string, out map[string][]History) error {
	cl := call{method: "POST", template: "/rest/api/3/changelog/bulkfetch", path: "/rest/api/3/changelog/bulkfetch", retry: true}
	req := bulkChangelogRequest{IssueIDsOrKeys: keys, FieldIDs: fieldIDs, MaxResults: bulkPageSize}
	seen := map[string]bool{}
	for n := 0; ; n++ {
		if n == maxPages {
			return tooManyPages(cl)
		}
		cl.body = req
		_, raw, err := c.do(ctx, cl)
		if err != nil {
			return err
		}
		var page bulkChangelogResponse
		if err := decodeStrict(cl, raw, &page, "issueChangeLogs"); err != nil {
			return err
		}
		for _, icl := range page.IssueChangeLogs {
			key := asked[icl.IssueID]
			if key == "" {
				return fmt.Errorf("jira %s: changelog for issue id %q that was not asked for", cl.endpoint(), icl.IssueID)
			}
			out[key] = append(out[key], icl.ChangeHistories...)
		}
		if page.NextPageToken == "" {
			return nil
		}
		if seen[page.NextPageToken] {
			return fmt.Errorf("jira %s: server repeated page token", cl.endpoint())
		}
		seen[page.NextPageToken] = true
		req.NextPageToken = page.NextPageToken
	}
}

// resolveIDs learns the ids of keys not seen in earlier searches with
// `key in (…)` searches. It returns the keys (and numeric ids) to bulk
// fetch, a map from their ids (and from themselves) back to them, taken at
// once so that a later search or a cache reset cannot change it, and the
// keys Jira refused to resolve (a 400, e.g. a deleted issue), which are
// fetched one by one instead.
func (c *Client) resolveIDs(ctx context.Context, keys []string) (bulk []string, asked map[string]string, fallback []string, err error) {
	var missing []string
	c.mu.Lock()
	for _, k := range keys {
		if _, ok := c.keyToID[k]; !ok && !isDigits(k) {
			missing = append(missing, k)
		}
	}
	c.mu.Unlock()
	const chunk = 100
	for start := 0; start < len(missing); start += chunk {
		end := min(start+chunk, len(missing))
		if err := c.searchKeys(ctx, missing[start:end]); err != nil {
			return nil, nil, nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	asked = make(map[string]string, 2*len(keys))
	for _, k := range keys {
		if id, ok := c.keyToID[k]; ok || isDigits(k) {
			bulk = append(bulk, k)
			asked[k] = k
			if ok {
				asked[id] = k
			}
		} else {
			fallback = append(fallback, k)
		}
	}
	return bulk, asked, fallback, nil
}

// searchKeys learns the ids of keys with one search. Jira rejects the
// whole query when a key does not exist and names it; such keys are
// dropped and the search repeated, so one deleted issue costs one extra
// call instead of one call per key.
func (c *Client) searchKeys(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		jql, err := KeyIn(keys)
		if err != nil {
			return err
		}
		_, err = c.Search(ctx, SearchRequest{JQL: jql, Fields: []string{"created"}}, 0)
		if !IsBadRequest(err) {
			return err
		}
		var ae *APIError
		errors.As(err, &ae)
		rest := keys[:0:0]
		for _, k := range keys {
			if !mentionsKey(ae.Messages, k) {
				rest = append(rest, k)
			}
		}
		if len(rest) == len(keys) {
			return nil // rejected without naming a key: resolve the rest one by one
		}
		keys = rest
	}
	return nil
}

// mentionsKey reports whether a Jira message quotes key ('KEY').
func mentionsKey(msgs []string, key string) bool {
	for _, m := range msgs {
		if strings.Contains(strings.ToUpper(m), "'"+strings.ToUpper(key)+"'") {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Changelog is the per-issue fallback of BulkChangelogs
// (GET /rest/api/3/issue/{key}/changelog), oldest history first.
func (c *Client) Changelog(ctx context.Context, issueKey string) ([]History, error) {
	if issueKey == "" {
		return nil, fmt.Errorf("jira changelog: empty issue key")
	}
	cl := call{method: "GET", template: "/rest/api/3/issue/{issueIdOrKey}/changelog",
		path: "/rest/api/3/issue/" + pathEscape(issueKey) + "/changelog", retry: true}
	var out []History
	for startAt, n := 0, 0; ; n++ {
		if n == maxPages {
			return nil, tooManyPages(cl)
		}
		cl.query = url.Values{"startAt": {strconv.Itoa(startAt)}, "maxResults": {"100"}}
		_, raw, err := c.do(ctx, cl)
		if err != nil {
			return nil, err
		}
		var page struct {
			Values []History `json:"values"`
			Total  int       `json:"total"`
			IsLast *bool     `json:"isLast"`
		}
		if err := decodeStrict(cl, raw, &page, "values"); err != nil {
			return nil, err
		}
		out = append(out, page.Values...)
		startAt += len(page.Values)
		if len(page.Values) == 0 || (page.IsLast != nil && *page.IsLast) || (page.IsLast == nil && startAt >= page.Total) {
			return sortHistories(out), nil
		}
	}
}

// sortHistories orders histories oldest first (then by numeric id).
func sortHistories(hs []History) []History {
	sort.SliceStable(hs, func(i, j int) bool {
		if !hs[i].Created.Equal(hs[j].Created.Time) {
			return hs[i].Created.Before(hs[j].Created.Time)
		}
		a, _ := strconv.ParseInt(hs[i].ID, 10, 64)
		b, _ := strconv.ParseInt(hs[j].ID, 10, 64)
		return a < b
	})
	return hs
}

// filterFields keeps the items whose fieldId (or field name) is listed,
// dropping histories left empty; no ids keeps everything.
func filterFields(hs []History, fieldIDs []string) []History {
	if len(fieldIDs) == 0 {
		return hs
	}
	want := map[string]bool{}
	for _, f := range fieldIDs {
		want[strings.ToLower(f)] = true
	}
	out := hs[:0]
	for _, h := range hs {
		var items []ChangeItem
		for _, it := range h.Items {
			if want[strings.ToLower(it.FieldID)] || (it.FieldID == "" && want[strings.ToLower(it.Field)]) {
				items = append(items, it)
			}
		}
		if len(items) > 0 {
			h.Items = items
			out = append(out, h)
		}
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
