package jira

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// inlineADF are the ADF node types rendered on the line of their
// neighbours; every other node (paragraph, heading, codeBlock, listItem,
// taskItem, blockquote, tableCell, ...) is a block, on lines of its own.
var inlineADF = map[string]bool{
	"text": true, "hardBreak": true, "mention": true, "emoji": true, "inlineCard": true,
	"date": true, "status": true, "mediaInline": true, "placeholder": true, "inlineExtension": true,
}

// ADFToText renders an Atlassian Document Format document as plain text,
// every text node in document order: each block node (paragraph, heading,
// list item, task or decision item, table cell, code block, ...) on lines
// of its own, without list markers, so that a comment whose first block
// is a list item holding "/fs-triage" starts with the command; hard
// breaks become newlines; mentions, emoji, status, dates and cards render
// as their text; marks (code, bold, links) are dropped, keeping the text.
// Lines lose their trailing blanks and the result its leading and
// trailing empty lines.
//
// Every document Jira stores is rendered whole. Jira caps a comment at
// 32 767 characters; the walk is iterative, so no nesting depth short of
// the JSON decoder's (10 000 levels of JSON, about 5 000 of ADF nodes) is
// a limit, and a document within Jira's cap cannot nest more than about
// 2 700 levels (each takes at least a dozen characters). The text is not
// cut here: the event built from it cuts a long comment and marks it
// truncated (event.CommentOf). A content that is an object instead of a
// list is read as its one child, and the document may be any node (a
// bare text node included). A body that is not JSON (nesting beyond the
// decoder included), or whose top level is not a node or a list of nodes,
// is an error.
func ADFToText(raw json.RawMessage) (string, error) {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return "", fmt.Errorf("ADF document: %v", err)
	}
	switch root.(type) {
	case map[string]any, []any:
	default:
		return "", errors.New("ADF document: the top level is not a node")
	}
	w := adfWriter{}
	w.walk(root)
	lines := strings.Split(w.b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), nil
}

// adfWriter accumulates the rendering.
type adfWriter struct{ b strings.Builder }

// adfStep is one entry of the walk's stack: a node to render, or the end
// of a block.
type adfStep struct {
	node     any
	endBlock bool
}

// walk renders root depth-first in document order with an explicit stack.
func (w *adfWriter) walk(root any) {
	stack := []adfStep{{node: root}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.endBlock {
			w.newline()
			continue
		}
		var children []any
		switch n := s.node.(type) {
		case []any:
			children = n
		case map[string]any:
			typ, _ := n["type"].(string)
			if !inlineADF[typ] {
				w.newline()
				stack = append(stack, adfStep{endBlock: true})
			}
			w.leaf(typ, n)
			children = adfContent(n["content"])
		}
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, adfStep{node: children[i]})
		}
	}
}

// adfContent is a node's children: its content list, or the one node a
// content object is.
func adfContent(c any) []any {
	switch c := c.(type) {
	case []any:
		return c
	case map[string]any:
		return []any{c}
	}
	return nil
}

// leaf writes what node n of type typ shows itself (its children aside).
func (w *adfWriter) leaf(typ string, n map[string]any) {
	if t, ok := n["text"].(string); ok {
		w.write(t)
	}
	attrs, _ := n["attrs"].(map[string]any)
	attr := func(k string) string { s, _ := attrs[k].(string); return s }
	switch typ {
	case "hardBreak":
		w.write("\n")
	case "mention", "status", "placeholder":
		w.write(attr("text"))
	case "emoji":
		if t := attr("text"); t != "" {
			w.write(t)
		} else {
			w.write(attr("shortName"))
		}
	case "inlineCard":
		w.write(attr("url"))
	case "date":
		w.write(attr("timestamp"))
	}
}

// newline ends the current line, if there is one.
func (w *adfWriter) newline() {
	if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		w.b.WriteByte('\n')
	}
}

func (w *adfWriter) write(s string) { w.b.WriteString(s) }

// TextToADF wraps plain text in a minimal ADF document: one paragraph per
// line (empty lines dropped).
func TextToADF(text string) json.RawMessage {
	type node struct {
		Type    string `json:"type"`
		Text    string `json:"text,omitempty"`
		Content []node `json:"content,omitempty"`
	}
	type doc struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
		Content []node `json:"content"`
	}
	d := doc{Type: "doc", Version: 1, Content: []node{}}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		d.Content = append(d.Content, node{Type: "paragraph", Content: []node{{Type: "text", Text: line}}})
	}
	b, _ := json.Marshal(d)
	return b
}
