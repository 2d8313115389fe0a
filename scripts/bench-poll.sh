#!/usr/bin/env bash
# Measures the poll cycle against the Jira emulator (internal/poll/jirapoll):
#   cost     — one cycle, 50 candidates, 5 with a new triggering comment, N=5,
#              50 ms latency per call, default 500–1500 ms jitter: Jira calls
#              and wall time per cycle (target: <= 30 calls, < 2.5 s).
#   parallel — 4 pollers, 100 issues, one triggering comment each over 20
#              cycles, random 20–200 ms latency, 200 ms search lag: duplicates
#              (target 0) and lost changes (must be 0). Takes about a minute.
#   chaos    — 4 real `fullsend poll` processes against the Jira and GitHub
#              emulators (gha-dispatch), each killed with SIGKILL at a random
#              moment with p=0.7, for DURATION (default 4m), then a drain:
#              processes, kills, changes, dispatches, lost, duplicates and
#              locks left (targets: 0 lost, 0 duplicates, 0 locks left).
#              Not part of `all`. Extra flags after DURATION go to the
#              benchmark, e.g. -chaos.key-title=false (shipped run-name).
# Usage: scripts/bench-poll.sh [cost|parallel|all] [COUNT]
#        scripts/bench-poll.sh chaos [DURATION] [-chaos.FLAG=VALUE...]
set -euo pipefail
what="${1:-all}"
count="${2:-5}"
cd "$(dirname "$0")/.."
if [[ "$what" == chaos ]]; then
  duration="${2:-4m}"
  shift $(( $# < 2 ? $# : 2 ))
  exec go test -run '^$' -bench '^BenchmarkChaos$' -benchtime 1x -timeout 30m ./internal/poll/chaos/ \
    -args -chaos.duration="$duration" "$@"
fi
if [[ "$what" == cost || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkCycleCost$' -benchtime "${count}x" ./internal/poll/jirapoll/
fi
if [[ "$what" == parallel || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkParallelPollersFullLatency$' -benchtime 1x -timeout 10m ./internal/poll/jirapoll/
fi
