package promql

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokNumber
	tokString
	tokOp    // a matcher operator: = != =~ !~
	tokPunct // ( ) { } , + - * /
	tokRange // the text between [ and ]
)

type token struct {
	kind tokKind
	text string
}

func isIdent(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// lex splits expr into tokens.
func (p *parser) lex(expr string) error {
	for i := 0; i < len(expr); {
		c := expr[i]
		j := i + 1
		var t token
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
			continue
		case isIdent(c, true):
			for j < len(expr) && isIdent(expr[j], false) {
				j++
			}
			t = token{tokIdent, expr[i:j]}
		case c >= '0' && c <= '9' || c == '.':
			for j < len(expr) && (expr[j] >= '0' && expr[j] <= '9' || expr[j] == '.' || expr[j] == 'e') {
				j++
			}
			t = token{tokNumber, expr[i:j]}
		case c == '"':
			end := strings.IndexByte(expr[j:], '"')
			if end < 0 || strings.Contains(expr[j:j+end], `\`) {
				return fmt.Errorf("%q: unterminated or escaped string at %d", expr, i)
			}
			t, j = token{tokString, expr[j : j+end]}, j+end+1
		case c == '[':
			end := strings.IndexByte(expr[j:], ']')
			if end < 0 {
				return fmt.Errorf("%q: unterminated range at %d", expr, i)
			}
			t, j = token{tokRange, strings.TrimSpace(expr[j : j+end])}, j+end+1
		case c == '=' || c == '!':
			if j < len(expr) && (expr[j] == '~' || expr[j] == '=') {
				j++
			}
			t = token{tokOp, expr[i:j]}
		case strings.IndexByte("(){},+-*/", c) >= 0:
			t = token{tokPunct, expr[i:j]}
		default:
			return fmt.Errorf("%q: unexpected %q at %d", expr, c, i)
		}
		p.toks = append(p.toks, t)
		i = j
	}
	return nil
}
