package jirasim

import (
	"fmt"
	"strings"
	"unicode"
)

// jqlError is a JQL problem reported as a 400 with this message.
type jqlError struct{ msg string }

func (e *jqlError) Error() string { return e.msg }

func jqlErrf(format string, args ...any) error { return &jqlError{fmt.Sprintf(format, args...)} }

type tokKind int

const (
	tkEOF tokKind = iota
	tkWord
	tkString
	tkOp
	tkLParen
	tkRParen
	tkComma
)

type token struct {
	kind tokKind
	text string
	pos  int // 1-based character position
}

// lex splits a JQL string into tokens.
func lex(q string) ([]token, error) {
	var out []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		pos := i + 1
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(':
			out = append(out, token{tkLParen, "(", pos})
			i++
		case r == ')':
			out = append(out, token{tkRParen, ")", pos})
			i++
		case r == ',':
			out = append(out, token{tkComma, ",", pos})
			i++
		case r == '"' || r == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(rs) && rs[j] != r; j++ {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
					switch rs[j] {
					case 'n':
						b.WriteRune('\n')
					case 't':
						b.WriteRune('\t')
					case 'r':
						b.WriteRune('\r')
					default:
						b.WriteRune(rs[j])
					}
					continue
				}
				b.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, jqlErrf("Error in the JQL Query: The quoted string starting at character %d is not terminated.", pos)
			}
			out = append(out, token{tkString, b.String(), pos})
			i = j + 1
		case strings.ContainsRune("=!<>~", r):
			j := i + 1
			if j < len(rs) && rs[j] == '=' {
				j++
			}
			op := string(rs[i:j])
			if op == "!" {
				if j < len(rs) && rs[j] == '~' {
					j++
					op = "!~"
				} else {
					return nil, jqlErrf("Error in the JQL Query: The character '!' is a reserved JQL character. (line 1, character %d)", pos)
				}
			}
			out = append(out, token{tkOp, op, pos})
			i = j
		case r == '&' || r == '|':
			if i+1 < len(rs) && rs[i+1] == r {
				word := "AND"
				if r == '|' {
					word = "OR"
				}
				out = append(out, token{tkWord, word, pos})
				i += 2
				continue
			}
			return nil, jqlErrf("Error in the JQL Query: The character '%c' is a reserved JQL character. (line 1, character %d)", r, pos)
		default:
			j := i
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			if j == i {
				return nil, jqlErrf("Error in the JQL Query: The character '%c' is a reserved JQL character. (line 1, character %d)", r, pos)
			}
			out = append(out, token{tkWord, string(rs[i:j]), pos})
			i = j
		}
	}
	return append(out, token{tkEOF, "", len(rs) + 1}), nil
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.:/+*@", r)
}

// node is a parsed JQL restriction.
type node interface{}

type andNode struct{ a, b node }
type orNode struct{ a, b node }
type notNode struct{ x node }

// clause is `field op value(s)`; empty is set for IS [NOT] EMPTY.
type clause struct {
	field  string // canonical lower-case name
	name   string // the field as the query wrote it
	op     string // = != > >= < <= in "not in" is "is not"
	values []token
	pos    int
}

type orderKey struct {
	field string
	desc  bool
}

// query is a parsed JQL query.
type query struct {
	where node // nil when unbounded
	order []orderKey
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == tkWord && strings.EqualFold(t.text, w)
}

func unexpected(t token, want string) error {
	got := t.text
	if t.kind == tkEOF {
		return jqlErrf("Error in the JQL Query: Expecting %s before the end of the query.", want)
	}
	return jqlErrf("Error in the JQL Query: Expecting %s but got '%s'. (line 1, character %d)", want, got, t.pos)
}

// parseJQL parses the supported subset; it does not check values against
// the world (see compile).
func parseJQL(q string) (*query, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	out := &query{}
	if p.peek().kind != tkEOF && !p.isWord("order") {
		if out.where, err = p.parseOr(0); err != nil {
			return nil, err
		}
	}
	if p.isWord("order") {
		p.next()
		if !p.isWord("by") {
			return nil, unexpected(p.peek(), "'by'")
		}
		p.next()
		for {
			t := p.next()
			if t.kind != tkWord && t.kind != tkString {
				return nil, unexpected(t, "a field name")
			}
			ok := orderKey{field: canonicalField(t.text)}
			if !orderable[ok.field] {
				return nil, jqlErrf("Field '%s' does not exist or you do not have permission to view it.", t.text)
			}
			if p.isWord("asc") || p.isWord("desc") {
				ok.desc = strings.EqualFold(p.next().text, "desc")
			}
			out.order = append(out.order, ok)
			if p.peek().kind != tkComma {
				break
			}
			p.next()
		}
	}
	if t := p.peek(); t.kind != tkEOF {
		return nil, unexpected(t, "either 'OR' or 'AND'")
	}
	return out, nil
}

const maxDepth = 100

func (p *parser) parseOr(depth int) (node, error) {
	a, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.isWord("or") {
		p.next()
		b, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		a = orNode{a, b}
	}
	return a, nil
}

func (p *parser) parseAnd(depth int) (node, error) {
	a, err := p.parseNot(depth)
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		p.next()
		b, err := p.parseNot(depth)
		if err != nil {
			return nil, err
		}
		a = andNode{a, b}
	}
	return a, nil
}

func (p *parser) parseNot(depth int) (node, error) {
	if depth > maxDepth {
		return nil, jqlErrf("Error in the JQL Query: the query is nested too deeply.")
	}
	if p.isWord("not") {
		p.next()
		x, err := p.parseNot(depth + 1)
		return notNode{x}, err
	}
	if p.peek().kind == tkLParen {
		p.next()
		x, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tkRParen {
			return nil, unexpected(t, "')'")
		}
		return x, nil
	}
	return p.parseClause()
}
