#!/usr/bin/env bash
# One-shot idle-cycle targets against the emulators' counters (a new process per cycle, the state directory shared): jira-poll ≤ 2 calls at 2 000 issues, gitlab-poll ≤ 3 at 1 000 items, github-poll 0 points and ≤ 3 requests.
set -euo pipefail
go test -count=1 -run '^TestOneShotIdle$' -v ./internal/poll/jirapoll/ ./internal/poll/gitlabpoll/ ./internal/poll/githubpoll/ |
	grep -E '^(=== RUN|---|ok|FAIL|PASS)|idle one-shot cycle|without the state'
