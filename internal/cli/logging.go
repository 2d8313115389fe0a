package cli

import (
	"log/slog"
	"time"
)

// durationsInMS is the JSON logs' ReplaceAttr: every duration attribute
// becomes "<key>_ms" holding milliseconds as a number, so that every JSON
// log record uses one unit (the poll cycle record's duration_ms too). Text
// logs keep Go's readable form ("2s").
func durationsInMS(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindDuration {
		return a
	}
	return slog.Float64(a.Key+"_ms", float64(a.Value.Duration())/float64(time.Millisecond))
}
