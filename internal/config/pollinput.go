package config

import "github.com/fullsend-dev/fullsend/internal/drivername"

// LockInput returns the poll.input_drivers entry whose poll locks the runs
// maintain: the first entry of a driver that holds poll locks (jira-poll).
// `fullsend run` connects to it to keep a run's lock, and a poller keeps
// the locks of the runs it has queued in process through it. ok is false
// when no entry holds locks.
func (p Poll) LockInput() (index int, ok bool) {
	for i, in := range p.InputDrivers {
		if d, known := drivername.LookupInput(in.Type); known && d.Polls && !d.NoLocks {
			return i, true
		}
	}
	return -1, false
}

// baseURLEnv lists the variables a poll input's base URL defaults to, in
// order: $CI_API_V4_URL then $GITLAB_API_URL for gitlab-poll,
// $GITHUB_API_URL for github-poll,
// $JIRA_BASE_URL otherwise.
func baseURLEnv(typ string) []string {
	if typ == drivername.GitLabPoll {
		return []string{"CI_API_V4_URL", "GITLAB_API_URL"}
	}
	if typ == drivername.GitHubPoll {
		return []string{"GITHUB_API_URL"}
	}
	return []string{"JIRA_BASE_URL"}
}
