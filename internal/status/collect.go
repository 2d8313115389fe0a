package status

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/drivername"
)

// Notes on the drivers that keep no state on the work items.
const (
	noteGitLab = "no locks: the pipelines are the record (see docs/gitlab.md, \"Backstop: gitlab-poll\")"
	noteNoLock = "no locks: the runs on the platform are the record"
)

// collect builds the Input of poll.input_drivers[i] and the Jira calls
// it made; the --issue inspection goes into rep.
func (s *snapshotter) collect(ctx context.Context, i int, m *scrape, rep *Report) (Input, int, error) {
	id := s.cfg.Poll.InputDrivers[i]
	in := Input{Driver: id.Type, Site: id.Connection.BaseURL, Repo: s.cfg.Repo,
		Locks: []Lock{}, Quarantined: []Quarantine{}, Failing: []Failing{}, Deferred: []Deferred{}}
	in.Poller, in.PollerNote = m.poller(id.Type, rep.At)
	switch id.Type {
	case drivername.JiraPoll:
		return s.collectJira(ctx, i, in, rep)
	case drivername.GitLabPoll:
		in.Note = noteGitLab
	default:
		in.Note = noteNoLock
	}
	if s.o.Issue != "" && rep.Issue == nil {
		return in, 0, fmt.Errorf("--issue %s: only a %s input records work items", s.o.Issue, drivername.JiraPoll)
	}
	return in, 0, nil
}
