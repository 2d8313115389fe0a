package steer

import (
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/feedback"
)

// MarkerKind is the feedback marker kind of a consumed follow-up.
const MarkerKind = "steered"

// Marker is the line of the tool's reply that records comment as
// delivered to a run of harness: "[fullsend:steered triage/comment-4021]".
// Only a reply of the tool's own account carrying it counts (Consumed
// checks the author).
func Marker(harness string, comment int64) string {
	return feedback.Marker(MarkerKind, harness+"/"+IDOf(comment))
}

// ReplyText is the reply that records the delivery and tells the people
// on the item that the comment reached the running agent; run names the
// run it reached (RunMarker, "" for none).
func ReplyText(harness string, comment int64, run string) string {
	in, line := "", ""
	if run != "" {
		in, line = " of run "+run, "\n"+RunMarker(run)
	}
	return "This comment reached the running `" + harness + "` agent" + in + " (comment " + strconv.FormatInt(comment, 10) +
		"): it was delivered into the run in progress, so no second run starts for it.\n\n" + Marker(harness, comment) + line
}

// Reply is a comment or note as the consumed check and status need it.
type Reply struct {
	Author string // the platform's account id or login
	Body   string
	At     time.Time // when it was written; zero when not known
}

// Consumed reports whether one of replies is the tool's own record
// (author own) of comment delivered to harness: a line equal to Marker.
// A marker written by anyone else records nothing.
func Consumed(replies []Reply, own, harness string, comment int64) bool {
	m := Marker(harness, comment)
	for _, r := range replies {
		if own == "" || r.Author != own {
			continue
		}
		for _, line := range strings.Split(r.Body, "\n") {
			if strings.TrimSpace(line) == m {
				return true
			}
		}
	}
	return false
}

// ParseMarker reads a Marker line back: the harness and the comment id
// it records (ok false for any other text).
func ParseMarker(line string) (harness string, comment int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "[fullsend:"+MarkerKind+" ")
	if !found {
		return "", 0, false
	}
	rest, found = strings.CutSuffix(rest, "]")
	if !found {
		return "", 0, false
	}
	harness, id, found := strings.Cut(rest, "/")
	if !found || harness == "" || !validID(id) {
		return "", 0, false
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "comment-"), 10, 64)
	if err != nil {
		return "", 0, false
	}
	return harness, n, true
}

// MarkedBy is what the tool's own replies among replies record: per
// comment id, the harnesses it was delivered to.
func MarkedBy(replies []Reply, own string) map[int64][]string {
	out := map[int64][]string{}
	for _, d := range Steered(replies, own) {
		out[d.Comment] = append(out[d.Comment], d.Harness)
	}
	return out
}
