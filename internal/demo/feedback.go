package demo

import (
	"github.com/fullsend-dev/fullsend/internal/feedback"
)

// eyesOn counts the eyes award emoji the tool's account gave on note id
// of the GitLab scene: the acknowledgment `fullsend dispatch` writes after
// the pipeline started (docs/feedback.md).
func (g *gitlabWorld) eyesOn(note int64) int {
	n := 0
	for _, a := range g.sim.Awards("Note", note) {
		if a.Name == feedback.Eyes && a.UserID == g.bot.ID {
			n++
		}
	}
	return n
}
