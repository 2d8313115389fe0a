package ghactions

import "testing"

// TestFeedbackPermissions: the jobs that dispatch from GitHub events get
// issues and pull-requests write only when feedback is on (its
// reactions); otherwise the events job reads pull requests and nothing
// else, and the poll job reads what github-poll reads.
func TestFeedbackPermissions(t *testing.T) {
	cases := []struct {
		name          string
		o             Options
		file, job     string
		issues, pulls string
	}{
		{"events, feedback", Options{Feedback: true}, EventsFile, "dispatch", "write", "write"},
		{"events, no feedback", Options{}, EventsFile, "dispatch", "", "read"},
		{"github-poll, feedback", Options{GitHubPoll: true, Feedback: true}, PollFile, "poll", "write", "write"},
		{"github-poll, no feedback", Options{GitHubPoll: true}, PollFile, "poll", "read", "read"},
		{"jira poll, feedback", Options{Feedback: true}, PollFile, "poll", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := jobPermissions(t, generatedWith(t, tc.o), tc.file, tc.job)
			if p["issues"] != tc.issues || p["pull-requests"] != tc.pulls {
				t.Errorf("%s job %s: issues %q, pull-requests %q; want %q, %q", tc.file, tc.job, p["issues"], p["pull-requests"], tc.issues, tc.pulls)
			}
		})
	}
}
