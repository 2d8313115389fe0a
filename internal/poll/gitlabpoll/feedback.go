package gitlabpoll

import (
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

var _ poll.FeedbackInput = (*Input)(nil)

// Feedback implements poll.FeedbackInput: award emoji through the
// poller's own GitLab client (its transport counts the calls).
func (in *Input) Feedback() (string, feedback.Writer) {
	return event.SystemGitLab, &feedback.GitLab{Client: in.gl}
}
