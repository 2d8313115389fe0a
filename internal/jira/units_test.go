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

func TestADFToText(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"paragraphs and hard break", `{"type":"doc","version":1,"content":[
			{"type":"paragraph","content":[{"type":"text","text":"/fs-triage check"},{"type":"hardBreak"},{"type":"text","text":"more"}]},
			{"type":"paragraph","content":[{"type":"text","text":"second"}]}]}`, "/fs-triage check\nmore\nsecond", false},
		{"mention and code mark", `{"type":"doc","content":[{"type":"paragraph","content":[
			{"type":"mention","attrs":{"id":"1","text":"@Alice"}},{"type":"text","text":" run "},
			{"type":"text","text":"/fs-code","marks":[{"type":"code"}]}]}]}`, "@Alice run /fs-code", false},
		{"code block and lists", `{"type":"doc","content":[
			{"type":"codeBlock","attrs":{"language":"sh"},"content":[{"type":"text","text":"make test\nmake lint"}]},
			{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"one"}]}]},
			{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"two"}]}]}]},
			{"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"three"}]}]}]}]}`,
			"make test\nmake lint\n- one\n- two\n3. three", false},
		{"leading empty paragraph trimmed", `{"type":"doc","content":[{"type":"paragraph"},{"type":"paragraph","content":[{"type":"text","text":"  /fs-x  "}]}]}`, "  /fs-x", false},
		{"emoji, card, quote", `{"type":"doc","content":[{"type":"blockquote","content":[{"type":"paragraph","content":[
			{"type":"emoji","attrs":{"shortName":":smile:"}},{"type":"text","text":" "},{"type":"inlineCard","attrs":{"url":"https://x.test/1"}}]}]}]}`,
			":smile: https://x.test/1", false},
		{"task and decision items are one line each", `{"type":"doc","content":[
			{"type":"taskList","attrs":{"localId":"t"},"content":[{"type":"taskItem","attrs":{"localId":"1","state":"TODO"},"content":[
				{"type":"text","text":"/fs-code fix "},{"type":"text","text":"login","marks":[{"type":"strong"}]},{"type":"text","text":" bug"}]}]},
			{"type":"decisionList","attrs":{"localId":"d"},"content":[{"type":"decisionItem","attrs":{"localId":"2","state":"DECIDED"},"content":[
				{"type":"text","text":"ship "},{"type":"mention","attrs":{"id":"1","text":"@Bo"}}]}]}]}`,
			"- /fs-code fix login bug\n- ship @Bo", false},
		{"not a doc", `{"type":"paragraph"}`, "", true},
		{"not json", `{`, "", true},
	}
	for _, tc := range tests {
		got, err := ADFToText(json.RawMessage(tc.in))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	round, err := ADFToText(TextToADF("/fs-triage go\n\nnext"))
	if err != nil || round != "/fs-triage go\nnext" {
		t.Errorf("round trip = %q %v", round, err)
	}
}

func TestADFDeepNestingBounded(t *testing.T) {
	doc := `{"type":"doc","content":[` + strings.Repeat(`{"type":"blockquote","content":[`, 500) +
		`{"type":"paragraph","content":[{"type":"text","text":"deep"}]}` + strings.Repeat(`]}`, 500) + `]}`
	got, err := ADFToText(json.RawMessage(doc))
	if err != nil || got != "" {
		t.Errorf("deep doc = %q %v (content beyond the depth bound is dropped)", got, err)
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

func FuzzADFToText(f *testing.F) {
	f.Add(`{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"/fs-x y"}]}]}`)
	f.Add(`{"type":"doc","content":[{"type":"orderedList","attrs":{"order":"x"},"content":[{"type":"listItem"}]}]}`)
	f.Add(`{"type":"doc","content":[{"type":"mention","attrs":5}]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ADFToText(json.RawMessage(in))
		if err == nil && out != strings.Trim(out, "\n") {
			t.Errorf("untrimmed output %q", out)
		}
	})
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
				_ = commentText(c.Body)
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
