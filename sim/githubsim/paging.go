package githubsim

// Paging (per_page, page and the Link header) and the query values the
// listings share (since, state, sort, direction), parsed as GitHub does.

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pageOf reads page (default 1) and per_page (default 30, at most 100);
// values that are not positive numbers take the default, like GitHub.
func pageOf(q url.Values) (page, perPage int) {
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	perPage, err = strconv.Atoi(q.Get("per_page"))
	if err != nil || perPage < 1 {
		perPage = 30
	}
	return page, min(perPage, 100)
}

// paginate returns the items on the request's page and sets the Link
// header that leads to the others.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	page, perPage := pageOf(r.URL.Query())
	if link := pageLinks(r, page, (len(items)+perPage-1)/perPage); link != "" {
		w.Header().Set("Link", link)
	}
	lo := min((page-1)*perPage, len(items))
	if page-1 > len(items)/perPage { // far past the end; avoids overflow
		lo = len(items)
	}
	return items[lo:min(lo+perPage, len(items))]
}

// pageLinks is the Link header of page out of last pages: absolute URLs
// that keep the request's other query values.
func pageLinks(r *http.Request, page, last int) string {
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var parts []string
	if page < last {
		parts = append(parts, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		parts = append(parts, link(1, "first"), link(min(page-1, max(last, 1)), "prev"))
	}
	return strings.Join(parts, ", ")
}

// invalidField is a query value GitHub refuses with 422 Validation Failed.
type invalidField struct{ resource, field string }

func (e *invalidField) Error() string { return e.field + " is invalid" }

// writeQueryError answers err, an *invalidField, as GitHub does.
func writeQueryError(w http.ResponseWriter, err error) {
	var f *invalidField
	if !errors.As(err, &f) {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
		"errors":            []map[string]any{{"resource": f.resource, "field": f.field, "code": "invalid"}},
		"documentation_url": "https://docs.github.com/rest"})
}

// parseSince reads an ISO 8601 time (YYYY-MM-DDTHH:MM:SSZ, other offsets,
// fractions, or a bare date); empty is the zero time.
func parseSince(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	return parseWhen(v)
}

// query reads the listing parameters every list shares.
type query struct {
	since     time.Time
	state     string // open, closed or all
	sort      string
	desc      bool
	sortGiven bool
}

// readQuery parses since, state (stateDefault "" means the list has no
// state filter) and sort (one of sorts, the first the default) with
// direction (default descDefault).
func readQuery(q url.Values, resource, stateDefault string, descDefault bool, sorts ...string) (query, error) {
	var out query
	var err error
	if out.since, err = parseSince(q.Get("since")); err != nil {
		return out, &invalidField{resource, "since"}
	}
	if stateDefault != "" {
		out.state = q.Get("state")
		if out.state == "" {
			out.state = stateDefault
		}
		if !slices.Contains([]string{"open", "closed", "all"}, out.state) {
			return out, &invalidField{resource, "state"}
		}
	}
	out.sort, out.sortGiven = q.Get("sort"), q.Get("sort") != ""
	if !out.sortGiven && len(sorts) > 0 {
		out.sort = sorts[0]
	}
	if out.sortGiven && !slices.Contains(sorts, out.sort) {
		return out, &invalidField{resource, "sort"}
	}
	switch q.Get("direction") {
	case "":
		out.desc = descDefault
	case "asc":
	case "desc":
		out.desc = true
	default:
		return out, &invalidField{resource, "direction"}
	}
	return out, nil
}

// keepState reports whether an item in state passes the state filter.
func (q query) keepState(state string) bool { return q.state == "all" || q.state == state }

// after reports whether t passes the since filter (at or after it).
func (q query) after(t time.Time) bool { return !t.Before(q.since) }

// order sorts items by key (ties by id), descending when q.desc.
func order[T any](items []T, desc bool, key func(T) (int64, int64)) {
	slices.SortStableFunc(items, func(a, b T) int {
		ka, ia := key(a)
		kb, ib := key(b)
		c := cmp.Compare(ka, kb)
		if c == 0 {
			c = cmp.Compare(ia, ib)
		}
		if desc {
			return -c
		}
		return c
	})
}
