package steer

import (
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/feedback"
)

// RunMarkerKind is the feedback marker kind of the line of a record that
// names the run the follow-up was delivered into.
const RunMarkerKind = "steered-into"

// RunMarker is the line of the tool's reply that names the run a
// follow-up reached, "driver/id" as the poll lock names runs
// ("[fullsend:steered-into gha-dispatch/9000]"), for `fullsend status`.
func RunMarker(run string) string { return feedback.Marker(RunMarkerKind, run) }

// ParseRunMarker reads a RunMarker line back (ok false for any other
// text, or a run that is not "driver/id").
func ParseRunMarker(line string) (run string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "[fullsend:"+RunMarkerKind+" ")
	if !found {
		return "", false
	}
	run, found = strings.CutSuffix(rest, "]")
	driver, id, cut := strings.Cut(run, "/")
	if !found || !cut || driver == "" || id == "" || strings.ContainsAny(run, " []") {
		return "", false
	}
	return run, true
}

// Delivered is one follow-up a record of the tool's own says was
// delivered: to which harness, the comment, the run it reached ("" when
// the record names none) and when the record was written.
type Delivered struct {
	Harness string    `json:"harness"`
	Comment int64     `json:"comment"`
	Run     string    `json:"run"`
	At      time.Time `json:"at"`
}

// Steered is what the tool's own replies (author own) among replies
// record, in their order: a marker anyone else wrote records nothing.
func Steered(replies []Reply, own string) []Delivered {
	var out []Delivered
	for _, r := range replies {
		if own == "" || r.Author != own {
			continue
		}
		var ds []Delivered
		run := ""
		for _, line := range strings.Split(r.Body, "\n") {
			if h, id, ok := ParseMarker(line); ok {
				ds = append(ds, Delivered{Harness: h, Comment: id, At: r.At})
			}
			if rn, ok := ParseRunMarker(line); ok {
				run = rn
			}
		}
		for i := range ds {
			ds[i].Run = run
		}
		out = append(out, ds...)
	}
	return out
}
