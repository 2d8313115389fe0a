package jira

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// adfNode is one node of an Atlassian Document Format tree.
type adfNode struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Attrs   json.RawMessage `json:"attrs"`
	Content []adfNode       `json:"content"`
}

type adfAttrs struct {
	Text      string `json:"text"`
	ShortName string `json:"shortName"`
	URL       string `json:"url"`
	Order     int    `json:"order"`
	Timestamp string `json:"timestamp"`
}

// maxADFDepth bounds nesting; deeper content is ignored.
const maxADFDepth = 64

// ADFToText renders an Atlassian Document Format document as plain text:
// one line per paragraph, heading, list, task or decision item or code line; hard breaks
// become newlines; mentions render as their text (e.g. "@Alice"); marks
// (code, bold, links) are dropped, keeping the text. The result is
// trimmed, so a command such as "/fs-triage" starts the first line.
func ADFToText(raw json.RawMessage) (string, error) {
	var root adfNode
	if err := json.Unmarshal(raw, &root); err != nil {
		return "", fmt.Errorf("ADF document: %v", err)
	}
	if root.Type != "doc" {
		return "", fmt.Errorf("ADF document: top-level type %q, want doc", root.Type)
	}
	var b strings.Builder
	renderBlocks(&b, root.Content, 0, "")
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), nil
}

// renderBlocks writes block nodes, each ending in a newline; prefix
// starts the first line of each block (list markers).
func renderBlocks(b *strings.Builder, nodes []adfNode, depth int, prefix string) {
	if depth > maxADFDepth {
		return
	}
	for _, n := range nodes {
		switch n.Type {
		case "paragraph", "heading":
			b.WriteString(prefix)
			renderInline(b, n.Content, depth+1)
			b.WriteByte('\n')
		case "codeBlock":
			b.WriteString(prefix)
			renderInline(b, n.Content, depth+1)
			b.WriteByte('\n')
		case "bulletList":
			for _, item := range n.Content {
				renderBlocks(b, item.Content, depth+2, prefix+"- ")
			}
		case "orderedList":
			start := 1
			var a adfAttrs
			if json.Unmarshal(n.Attrs, &a) == nil && a.Order > 0 {
				start = a.Order
			}
			for i, item := range n.Content {
				renderBlocks(b, item.Content, depth+2, prefix+strconv.Itoa(start+i)+". ")
			}
		case "taskItem", "decisionItem": // inline content, one line each
			b.WriteString(prefix + "- ")
			renderInline(b, n.Content, depth+1)
			b.WriteByte('\n')
		case "rule":
			b.WriteString("---\n")
		case "text", "hardBreak", "mention", "emoji", "inlineCard", "date", "status":
			b.WriteString(prefix)
			renderInline(b, []adfNode{n}, depth+1)
			b.WriteByte('\n')
		default: // blockquote, panel, listItem, table, expand, mediaGroup, …
			renderBlocks(b, n.Content, depth+1, prefix)
		}
	}
}

// renderInline writes inline nodes without a trailing newline.
func renderInline(b *strings.Builder, nodes []adfNode, depth int) {
	if depth > maxADFDepth {
		return
	}
	for _, n := range nodes {
		var a adfAttrs
		if len(n.Attrs) > 0 {
			_ = json.Unmarshal(n.Attrs, &a)
		}
		switch n.Type {
		case "text":
			b.WriteString(n.Text)
		case "hardBreak":
			b.WriteByte('\n')
		case "mention":
			b.WriteString(a.Text)
		case "emoji":
			if a.Text != "" {
				b.WriteString(a.Text)
			} else {
				b.WriteString(a.ShortName)
			}
		case "inlineCard":
			b.WriteString(a.URL)
		case "status":
			b.WriteString(a.Text)
		case "date":
			b.WriteString(a.Timestamp)
		default:
			renderInline(b, n.Content, depth+1)
		}
	}
}

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
