package githubpoll

import (
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

var _ poll.FeedbackInput = (*Input)(nil)

// Feedback implements poll.FeedbackInput: reactions through the poller's
// own GitHub client (its transport counts the calls).
func (in *Input) Feedback() (string, feedback.Writer) {
	return event.SystemGitHub, &feedback.GitHub{Client: in.gh}
}
