package jirapoll

import (
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

var _ poll.FeedbackInput = (*Input)(nil)

// Feedback implements poll.FeedbackInput: comments on the issues, through
// the poller's own Jira client (its pacing and call counts).
func (in *Input) Feedback() (string, feedback.Writer) {
	return event.SystemJira, &feedback.Jira{Client: in.client}
}
