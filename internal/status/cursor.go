package status

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
)

// readCursor is the default CursorReader: the cursor the pollers of the
// jira-poll input id share, read by jirapoll where id's cursor settings
// say it lives (one call; two when the account id is not configured and
// the cursor is a user property). A cursor turned off reads nothing.
func readCursor(ctx context.Context, client *jira.Client, repo string, id config.InputDriver) (Cursor, bool, error) {
	drv, err := jirapoll.New(jirapoll.Options{API: client, SiteURL: id.Connection.BaseURL, Repo: repo,
		Project: id.Project, Queries: id.Queries, PollerID: statusPollerID,
		CursorAPI: client, CursorMode: id.Cursor.Store, CursorAccount: id.Cursor.AccountID, CursorMargin: id.Cursor.Margin})
	if err != nil {
		return Cursor{}, false, config.Invalid(err)
	}
	c, found, err := drv.ReadCursor(ctx)
	if err != nil || !found {
		return Cursor{}, false, err
	}
	held := make(map[string]time.Time, len(c.Held))
	for k, t := range c.Held {
		held[k] = t
	}
	return Cursor{At: c.At, By: c.By, TS: c.TS, Pollers: c.Pollers, Held: held}, true, nil
}
