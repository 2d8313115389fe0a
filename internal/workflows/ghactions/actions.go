package ghactions

import "fmt"

// pin is one third-party action at a full commit SHA, with the release tag
// that commit carries (for the trailing comment and for updates).
type pin struct{ SHA, Version string }

// actionPins is the one table of actions the generated workflows use. Each
// SHA is the commit the tag points to in the action's repository (read
// from the repository's tags, not from a mirror of the Marketplace page);
// update an entry by reading the new tag's commit the same way.
var actionPins = map[string]pin{
	"actions/cache/restore": {"27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"},
	"actions/cache/save":    {"27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"},
	"actions/checkout":      {"3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"},
	"actions/setup-go":      {"b7ad1dad31e06c5925ef5d2fc7ad053ef454303e", "v7.0.0"},
}

// uses renders the `uses:` value of action with its version comment.
func uses(action string) (string, error) {
	p, ok := actionPins[action]
	if !ok {
		return "", fmt.Errorf("workflows: no pinned commit for action %s", action)
	}
	return fmt.Sprintf("%s@%s # %s", action, p.SHA, p.Version), nil
}
