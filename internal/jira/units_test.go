package jira

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTimeJSON(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{`"2024-05-02T10:11:12.345+0000"`, time.Date(2024, 5, 2, 10, 11, 12, 345e6, time.UTC), false},
		{`"2024-05-02T12:11:12.345+0200"`, time.Date(2024, 5, 2, 10, 11, 12, 345e6, time.UTC), false},
		{`"2024-05-02T10:11:12Z"`, time.Date(2024, 5, 2, 10, 11, 12, 0, time.UTC), false},
		{`"2024-05-02T10:11:12.5+00:00"`, time.Date(2024, 5, 2, 10, 11, 12, 5e8, time.UTC), false},
		{`null`, time.Time{}, false},
		{`""`, time.Time{}, false},
		{`"yesterday"`, time.Time{}, true},
		{`12`, time.Time{}, true},
	}
	for _, tc := range tests {
		var got Time
		err := json.Unmarshal([]byte(tc.in), &got)
		if (err != nil) != tc.err || !got.Equal(tc.want) {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v err=%v", tc.in, got, err, tc.want, tc.err)
		}
	}
	b, _ := json.Marshal(Time{time.Date(2024, 5, 2, 10, 11, 12, 345e6, time.UTC)})
	if string(b) != `"2024-05-02T10:11:12.345+0000"` {
		t.Errorf("Marshal = %s", b)
	}
	if b, _ := json.Marshal(Time{}); string(b) != "null" {
		t.Errorf("zero Marshal = %s", b)
	}
}

func TestJQLHelpers(t *testing.T) {
	quotes := map[string]string{
		`plain`:             `"plain"`,
		`a"b`:               `"a\"b"`,
		`x" OR project = Y`: `"x\" OR project = Y"`,
		`back\slash`:        `"back\\slash"`,
		"line\nbreak\x01":   `"line\nbreak "`,
	}
	for in, want := range quotes {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got, err := ProjectIn([]string{"PROJ", "A_1"}); err != nil || got != `project in ("PROJ", "A_1")` {
		t.Errorf("ProjectIn = %s %v", got, err)
	}
	for _, bad := range [][]string{nil, {"1A"}, {`P" OR x`}, {""}} {
		if _, err := ProjectIn(bad); err == nil {
			t.Errorf("ProjectIn(%q) accepted", bad)
		}
	}
	if got, err := KeyIn([]string{"PROJ-0", "A-1"}); err != nil || got != `key in ("PROJ-0", "A-1")` {
		t.Errorf("KeyIn(PROJ-0, A-1) = %s %v, want both accepted (Jira accepts them)", got, err)
	}
	if _, err := KeyIn([]string{"PROJ-01"}); err == nil {
		t.Error("KeyIn accepted PROJ-01")
	}
	if got, err := NotKeyIn([]string{"PROJ-2", "A-1"}); err != nil || got != `NOT key in ("PROJ-2", "A-1")` {
		t.Errorf("NotKeyIn = %s %v", got, err)
	}
	if _, err := NotKeyIn([]string{"A-1", `A-1") OR (x`}); err == nil {
		t.Error("NotKeyIn accepted a value that is no issue key")
	}
	many := make([]string, MaxListValues+1)
	for i := range many {
		many[i] = fmt.Sprintf("A-%d", i)
	}
	if _, err := KeyIn(many); err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("KeyIn of %d keys: %v, want an error naming Jira's limit", len(many), err)
	}
	if got := UpdatedSince(time.UnixMilli(1714644672000)); got != "updated >= 1714644672000" {
		t.Errorf("UpdatedSince = %s", got)
	}
	ands := []struct {
		in   []string
		want string
	}{
		{[]string{"project = P ORDER BY created DESC", "updated >= 1"}, "(project = P) AND (updated >= 1) ORDER BY created DESC"},
		{[]string{`summary ~ "order by x"`, ""}, `(summary ~ "order by x")`},
		{[]string{"a = 1 OR b = 2", "c = 3"}, "(a = 1 OR b = 2) AND (c = 3)"},
		{[]string{"labels = reorder", "x=1"}, "(labels = reorder) AND (x=1)"},
	}
	for _, tc := range ands {
		if got := And(tc.in...); got != tc.want {
			t.Errorf("And(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorHelpers(t *testing.T) {
	for status, check := range map[int]func(error) bool{404: IsNotFound, 401: IsAuth, 403: IsAuth, 400: IsBadRequest} {
		err := fmt.Errorf("wrapped: %w", &APIError{Endpoint: "GET /x", Status: status})
		if !check(err) {
			t.Errorf("status %d not recognised", status)
		}
	}
	if IsNotFound(errors.New("404")) || IsAuth(&APIError{Status: 500}) {
		t.Error("false positive")
	}
}

func FuzzDecodeResponses(f *testing.F) {
	f.Add([]byte(`{"issues":[{"id":"1","key":"P-1","fields":{"created":"2024-05-02T10:11:12.345+0000","labels":["a"],"status":{"statusCategory":{"key":"new"}}}}],"isLast":true}`))
	f.Add([]byte(`{"issueChangeLogs":[{"issueId":"1","changeHistories":[{"id":"1","created":"2024-05-02T10:11:12Z","items":[{"field":"labels"}]}]}]}`))
	f.Add([]byte(`{"errorMessages":["x"],"errors":{"a":"b"}}`))
	f.Add([]byte(`{"comments":[{"id":"1","body":{"type":"doc"},"created":null}],"total":1}`))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		cl := call{method: "POST", template: "/t", path: "/t"}
		var sp searchPage
		if err := decode(cl, body, &sp); err != nil && !strings.Contains(err.Error(), "POST /t") {
			t.Errorf("error does not name endpoint: %v", err)
		}
		var bl bulkChangelogResponse
		_ = decode(cl, body, &bl)
		var cm struct {
			Comments []Comment `json:"comments"`
		}
		if decode(cl, body, &cm) == nil {
			for _, c := range cm.Comments {
				_, _ = ADFToText(c.Body)
			}
		}
		_ = errorMessages(body)
	})
}

func FuzzSplitOrderBy(f *testing.F) {
	f.Add("project = P ORDER BY created")
	f.Add(`summary ~ "order by" order  by key`)
	f.Add(`a = "\"" ORDER`)
	f.Fuzz(func(t *testing.T, q string) {
		where, ob := SplitOrderBy(q)
		if ob != "" && !strings.HasPrefix(strings.ToLower(ob), "order") {
			t.Errorf("order part %q", ob)
		}
		if len(where)+len(ob) > len(q) {
			t.Errorf("parts longer than input")
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-05-02T10:11:12.345+0000", "2024-05-02T10:11:12Z", "2024-13-02T10:11:12Z", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		if err != nil {
			return
		}
		b, _ := json.Marshal(Time{v})
		var back Time
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(v.Truncate(time.Millisecond)) {
			t.Errorf("%q: round trip %s -> %v %v", s, b, back, err)
		}
	})
}
