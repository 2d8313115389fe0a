package workflows

import (
	"fmt"
	"regexp"
)

// Value is one generator option that lands in YAML and shell text.
type Value struct{ Name, Val string }

// CheckValues returns an error naming the first value safe does not match;
// want says what safe accepts (e.g. "letters, digits and . _ -").
func CheckValues(safe *regexp.Regexp, want string, vs ...Value) error {
	for _, v := range vs {
		if !safe.MatchString(v.Val) {
			return fmt.Errorf("%s %q: want %s", v.Name, v.Val, want)
		}
	}
	return nil
}
