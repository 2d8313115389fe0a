package ghactions

import (
	"testing"
)

// TestCheckSecurityFindings edits the generated workflows the way a careless
// change would and expects exactly one finding at the edited line.
func TestCheckSecurityFindings(t *testing.T) {
	const (
		checkoutSHA   = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1"
		lockEnv       = "      FULLSEND_POLL_LOCK: ${{ inputs.poll_lock }}\n"
		callerSecrets = "    secrets:\n      JIRA_BASE_URL: ${{ secrets.JIRA_BASE_URL }}\n" +
			"      JIRA_USER_EMAIL: ${{ secrets.JIRA_USER_EMAIL }}\n      JIRA_TOKEN: ${{ secrets.JIRA_TOKEN }}\n"
		pollGroup = "concurrency:\n  group: fullsend-poll\n  cancel-in-progress: false\n"
	)
	for _, tc := range []struct {
		name     string
		reusable bool
		file     string // file to edit (base name)
		old, new string
		drop     string // file to remove from the set instead (base name)
		// the finding: file, marker of its line, a piece of its message
		wantFile, marker, msg string
	}{
		{"input pasted into run", false, RunFile, agentRun, "run: exec fullsend run --harness \"${{ inputs.agent }}\"\n", "",
			RunFile, "--harness \"${{", "use \"$AGENT\""},
		{"event field in a block script", false, RunFile, agentRun,
			"run: |\n          echo \"${{ github.event.issue.title }}\"\n          exec fullsend run\n", "",
			RunFile, "echo \"${{ github.event.issue.title", "env: { ISSUE_TITLE: ${{ github.event.issue.title }} }"},
		{"step output pasted into run", false, PollFile, "run: fullsend poll --state-dir", "run: fullsend poll ${{ steps.x.outputs.args }} --state-dir", "",
			PollFile, "steps.x.outputs.args", "\"$ARGS\""},
		{"secret pasted into run", false, RunFile, agentRun, "run: exec env JIRA_TOKEN=${{ secrets.JIRA_TOKEN }} fullsend run\n", "",
			RunFile, "JIRA_TOKEN=${{", "script injection"},
		{"trusted expression in run", false, RunFile, agentRun, "run: exec fullsend run --log-level ${{ vars.LOG_LEVEL }}\n", "",
			"", "", ""},
		{"checkout by tag", false, RunFile, checkoutSHA, "actions/checkout@v4", "",
			RunFile, "actions/checkout@v4", "movable ref"},
		{"third-party action by branch", false, PollFile, "      - name: Poll\n",
			"      - uses: acme/setup@main\n      - name: Poll\n", "", PollFile, "acme/setup@main", "40-hex commit SHA"},
		{"local and digest actions need no SHA", false, PollFile, "      - name: Poll\n",
			"      - uses: ./tools/action\n      - uses: docker://alpine@sha256:0000\n      - name: Poll\n", "", "", "", ""},
		{"image by tag", false, PollFile, "      - name: Poll\n",
			"      - uses: docker://alpine:3\n      - name: Poll\n", "", PollFile, "docker://alpine:3", "movable ref"},
		{"secret in job env", false, RunFile, lockEnv, lockEnv + "      LEAK: ${{ secrets.JIRA_TOKEN }}\n", "",
			RunFile, "LEAK:", "every step"},
		{"secret in workflow env", false, PollFile, "jobs:\n", "env:\n  LEAK: ${{ secrets.JIRA_TOKEN }}\njobs:\n", "",
			PollFile, "LEAK:", "workflow env LEAK"},
		{"checkout persists credentials", false, RunFile, "        with:\n          persist-credentials: false\n", "", "",
			RunFile, "actions/checkout@", "persist-credentials: false"},
		{"checkout persist-credentials quoted", false, PollFile, "persist-credentials: false", "persist-credentials: \"false\"", "",
			PollFile, "actions/checkout@", "persist-credentials: false"},
		{"secrets inherit", true, RunFile, callerSecrets, "    secrets: inherit\n", "",
			RunFile, "secrets: inherit", "every secret of the repository"},
		{"poll without concurrency", false, PollFile, pollGroup, "", "",
			PollFile, "  poll:", "two polls can overlap"},
		{"poll cancels in progress", false, PollFile, "cancel-in-progress: false", "cancel-in-progress: true", "",
			PollFile, "cancel-in-progress: true", "can cancel a running poll"},
		{"poll group is enough", false, PollFile, pollGroup, "concurrency: fullsend-poll\n", "", "", "", ""},
		{"deleted callee", true, "", "", "", ReusableFile,
			RunFile, "uses: ./.github/workflows/fullsend-run-reusable.yml", "not in this directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := generated(t, tc.reusable)
			if tc.drop != "" {
				delete(set, wfDir+tc.drop)
			} else {
				edit(t, set, tc.file, tc.old, tc.new)
			}
			expectOne(t, set, tc.wantFile, tc.marker, tc.msg)
		})
	}
}

func TestEnvName(t *testing.T) {
	for ref, want := range map[string]string{
		"inputs.serialization_key":           "SERIALIZATION_KEY",
		"github.event.issue.title":           "ISSUE_TITLE",
		"github.head_ref":                    "HEAD_REF",
		"needs.plan.outputs.key":             "KEY",
		"github.event.pull_request.head.ref": "PULL_REQUEST_HEAD_REF",
	} {
		if got := envName(ref); got != want {
			t.Errorf("envName(%q) = %q, want %q", ref, got, want)
		}
	}
}
