package jirapoll

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// maxRawAction is the schema's bound on source.raw_action, in code points
// (docs/events.md).
const maxRawAction = 128

// rawAction names the changed fields of one changelog entry in at most
// maxRawAction code points: the field ids joined with commas while they
// fit, then ",+N" for the N fields left out. A single field id too long on
// its own is truncated. An entry touching many custom fields thus still
// makes a valid event.
func rawAction(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	var b strings.Builder
	n := 0 // code points written
	for i, f := range fields {
		rest := len(fields) - i - 1
		suffix := ""
		if rest > 0 {
			suffix = ",+" + strconv.Itoa(rest) // worst case if the next one does not fit
		}
		sep := 0
		if i > 0 {
			sep = 1
		}
		need := sep + utf8.RuneCountInString(f)
		if n+need+len(suffix) > maxRawAction {
			if i == 0 { // the first id alone is too long: keep a prefix of it
				omitted := ""
				if len(fields) > 1 {
					omitted = ",+" + strconv.Itoa(len(fields)-1)
				}
				return event.Truncate(f, maxRawAction-len(omitted)) + omitted
			}
			return b.String() + ",+" + strconv.Itoa(len(fields)-i)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f)
		n += need
	}
	return b.String()
}
