// Package english writes the counted nouns and lists of messages: "1
// agent", "3 agents", "json, gha-event or gitlab-event". Every message
// that prints a count uses Count, so that none says "1 agents".
package english

import (
	"strconv"
	"strings"
)

// Count returns n and the noun, in the plural unless n is 1: Count(1,
// "agent") is "1 agent", Count(2, "dispatch") is "2 dispatches".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun returns noun in the plural unless n is 1. The last word of a
// compound noun is the one inflected ("newest-updated candidate").
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	return Plural(noun)
}

// Plural returns the plural of a regular English noun: -s, -es after s,
// x, z, ch and sh, -ies after a consonant and y.
func Plural(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Or joins items as "a", "a or b", "a, b or c".
func Or(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
