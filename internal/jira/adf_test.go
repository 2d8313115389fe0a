package jira

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestADFToText(t *testing.T) {
	para := func(text string) string {
		return `{"type":"paragraph","content":[{"type":"text","text":"` + text + `"}]}`
	}
	deep := func(n int, inner string) string {
		return `{"type":"doc","content":[` + strings.Repeat(`{"type":"blockquote","content":[`, n) + inner +
			strings.Repeat(`]}`, n) + `]}`
	}
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{name: "paragraphs and hard break", in: `{"type":"doc","version":1,"content":[
			{"type":"paragraph","content":[{"type":"text","text":"/fs-triage check"},{"type":"hardBreak"},{"type":"text","text":"more"}]},
			{"type":"paragraph","content":[{"type":"text","text":"second"}]}]}`, want: "/fs-triage check\nmore\nsecond"},
		{name: "mention and code mark", in: `{"type":"doc","content":[{"type":"paragraph","content":[
			{"type":"mention","attrs":{"id":"1","text":"@Alice"}},{"type":"text","text":" run "},
			{"type":"text","text":"/fs-code","marks":[{"type":"code"}]}]}]}`, want: "@Alice run /fs-code"},
		{name: "code block and lists", in: `{"type":"doc","content":[
			{"type":"codeBlock","attrs":{"language":"sh"},"content":[{"type":"text","text":"make test\nmake lint"}]},
			{"type":"bulletList","content":[{"type":"listItem","content":[` + para("one") + `]},{"type":"listItem","content":[` + para("two") + `]}]},
			{"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[` + para("three") + `]}]}]}`,
			want: "make test\nmake lint\none\ntwo\nthree"},
		{name: "command at the start of a bullet item", in: `{"type":"doc","content":[{"type":"bulletList","content":[
			{"type":"listItem","content":[` + para("/fs-triage look at it") + `]}]}]}`, want: "/fs-triage look at it"},
		{name: "command at the start of a task item", in: `{"type":"doc","content":[
			{"type":"taskList","attrs":{"localId":"t"},"content":[{"type":"taskItem","attrs":{"localId":"1","state":"TODO"},"content":[
				{"type":"text","text":"/fs-code fix "},{"type":"text","text":"login","marks":[{"type":"strong"}]},{"type":"text","text":" bug"}]}]},
			{"type":"decisionList","attrs":{"localId":"d"},"content":[{"type":"decisionItem","attrs":{"localId":"2","state":"DECIDED"},"content":[
				{"type":"text","text":"ship "},{"type":"mention","attrs":{"id":"1","text":"@Bo"}}]}]}]}`,
			want: "/fs-code fix login bug\nship @Bo"},
		{name: "leading empty paragraph and rule", in: `{"type":"doc","content":[{"type":"paragraph"},{"type":"rule"},` + para("  /fs-x  ") + `]}`, want: "  /fs-x"},
		{name: "emoji, card, quote", in: `{"type":"doc","content":[{"type":"blockquote","content":[{"type":"paragraph","content":[
			{"type":"emoji","attrs":{"shortName":":smile:"}},{"type":"text","text":" "},{"type":"inlineCard","attrs":{"url":"https://x.test/1"}}]}]}]}`,
			want: ":smile: https://x.test/1"},
		{name: "table cells on lines of their own", in: `{"type":"doc","content":[{"type":"table","content":[{"type":"tableRow","content":[
			{"type":"tableHeader","content":[` + para("a") + `]},{"type":"tableCell","content":[` + para("b") + `]}]}]}]}`, want: "a\nb"},
		{name: "content that is not a list", in: `{"type":"doc","content":{"type":"paragraph","content":{"type":"text","text":"/fs-triage single"}}}`,
			want: "/fs-triage single"},
		{name: "content of another type is no content", in: `{"type":"doc","content":[{"type":"paragraph","content":"x"},` + para("kept") + `]}`, want: "kept"},
		{name: "bare text node as the document", in: `{"type":"text","text":"/fs-triage bare"}`, want: "/fs-triage bare"},
		{name: "bare paragraph as the document", in: para("/fs-triage para"), want: "/fs-triage para"},
		{name: "list of nodes as the document", in: `[` + para("one") + `,` + para("two") + `]`, want: "one\ntwo"},
		{name: "unknown nodes keep their text", in: `{"type":"doc","content":[{"type":"expand","content":[{"type":"nestedExpand","content":[` + para("inside") + `]}]}]}`, want: "inside"},
		{name: "nesting 60 deep", in: deep(60, para("/fs-deep sixty")), want: "/fs-deep sixty"},
		{name: "nesting 2000 deep", in: deep(2000, para("/fs-deep far")), want: "/fs-deep far"},
		{name: "beyond Jira's 32 767 characters", in: `{"type":"doc","content":[` + para("/fs-long "+strings.Repeat("x", 40000)) + `]}`,
			want: "/fs-long " + strings.Repeat("x", 40000)},
		{name: "nesting beyond the decoder", in: deep(5001, para("x")), err: true},
		{name: "not a node", in: `5`, err: true},
		{name: "not json", in: `{`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ADFToText(json.RawMessage(tc.in))
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("got %.80q (len %d), %v; want %.80q, error %v", got, len(got), err, tc.want, tc.err)
			}
		})
	}
	round, err := ADFToText(TextToADF("/fs-triage go\n\nnext"))
	if err != nil || round != "/fs-triage go\nnext" {
		t.Errorf("round trip = %q %v", round, err)
	}
}

// adfTexts collects the text of every text node of a decoded document,
// iteratively.
func adfTexts(root any) []string {
	var out []string
	stack := []any{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n := n.(type) {
		case []any:
			stack = append(stack, n...)
		case map[string]any:
			if n["type"] == "text" {
				if s, ok := n["text"].(string); ok {
					out = append(out, s)
				}
			}
			stack = append(stack, adfContent(n["content"])...)
		}
	}
	return out
}

// Every text node's text is in the output (each of its lines, without
// the blanks around it), for every document ADFToText accepts; nothing
// panics.
func FuzzADFToText(f *testing.F) {
	f.Add(`{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"/fs-x y"}]}]}`)
	f.Add(`{"type":"doc","content":[{"type":"orderedList","attrs":{"order":"x"},"content":[{"type":"listItem"}]}]}`)
	f.Add(`{"type":"doc","content":[{"type":"mention","attrs":5}]}`)
	f.Add(`{"type":"doc","content":{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"text","text":"/fs a"}]}]}}`)
	f.Add(`{"type":"text","text":"bare"}`)
	f.Add(`[{"type":"text","text":"a\nb"},{"type":"hardBreak"}]`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ADFToText(json.RawMessage(in))
		if err != nil {
			return
		}
		if out != strings.Trim(out, "\n") {
			t.Errorf("untrimmed output %q", out)
		}
		var root any
		if json.Unmarshal([]byte(in), &root) != nil {
			t.Fatalf("accepted a body that is not JSON: %q", in)
		}
		for _, text := range adfTexts(root) {
			for _, line := range strings.Split(text, "\n") {
				if l := strings.TrimSpace(line); !strings.Contains(out, l) {
					t.Errorf("text %q of %q missing from the output %q", l, in, out)
				}
			}
		}
	})
}

// A comment body that is not a readable document renders empty, and says
// so in the log (issue and comment named); a plain string is its text.
func TestCommentTextLogsUnreadableBody(t *testing.T) {
	var logs bytes.Buffer
	c := &Client{log: slog.New(slog.NewTextHandler(&logs, nil))}
	if got := c.commentText("P-1", Comment{ID: "7", Body: json.RawMessage(`"/fs-triage plain"`)}); got != "/fs-triage plain" {
		t.Errorf("plain string body = %q", got)
	}
	if got := c.commentText("P-1", Comment{ID: "8", Body: json.RawMessage(`42`)}); got != "" {
		t.Errorf("unreadable body = %q, want empty", got)
	}
	want := `msg="comment body is not a readable ADF document; its text is empty" issue=P-1 comment=8`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("logs %q lack %q", logs.String(), want)
	}
}
