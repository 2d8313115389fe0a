package config

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// Cursor configures a jira-poll input's shared discovery cursor
// (docs/polling.md, "Discovery cursor"). Zero values mean the defaults.
type Cursor struct {
	// Store is where the cursor lives: "user" (default: a property of the
	// poller's own account; every poller of the repo must use the same
	// account), "project" (a property of the input's project: needs
	// Administer Projects) or "off" (no cursor: discovery reads newest
	// first every cycle).
	Store string `yaml:"store"`
	// AccountID is the accountId of the poller's account (store user); when
	// empty it is read from /myself once per process.
	AccountID string `yaml:"account_id"`
	// Margin is how far behind its own search start a poller keeps the
	// cursor (default 2m): it must exceed Jira's search lag plus the clock
	// skew between the poller and Jira.
	Margin time.Duration `yaml:"margin"`
}

// CursorStores are the values of cursor.store.
var CursorStores = []string{"user", "project", "off"}

// cursor decodes an input driver's cursor block into d and returns the
// store's node (nil when absent), for checkCursor.
func (w *configWalk) cursor(v *yaml.Node, what string, d *InputDriver) *yaml.Node {
	c := &d.Cursor
	var storeNode *yaml.Node
	w.Fields(v, what+".cursor", map[string]func(*yaml.Node){
		"store":      func(v *yaml.Node) { storeNode = v; w.Enum(v, what+".cursor.store", &c.Store, CursorStores...) },
		"account_id": func(v *yaml.Node) { w.Str(v, what+".cursor.account_id", &c.AccountID) },
		"margin":     func(v *yaml.Node) { w.Duration(v, what+".cursor.margin", &c.Margin) },
	})
	return storeNode
}

// checkCursor checks what the cursor needs of the rest of the entry, once
// every key of it is decoded.
func (w *configWalk) checkCursor(storeNode *yaml.Node, what string, d *InputDriver) {
	if storeNode != nil && d.Cursor.Store == "project" && d.Project == "" {
		w.ErrAt(storeNode, "%s.cursor.store: project needs %s.project (the project the cursor is stored on)", what, what)
	}
}
