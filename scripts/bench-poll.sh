#!/usr/bin/env bash
# Measures the poll cycle against the Jira emulator (internal/poll/jirapoll):
#   cost     — one cycle, 50 candidates, 5 with a new triggering comment, N=5,
#              50 ms latency per call, default 500–1500 ms jitter: Jira calls
#              and wall time per cycle (target: <= 30 calls, < 2.5 s).
#   parallel — 4 pollers, 100 issues, one triggering comment each over 20
#              cycles, random 20–200 ms latency, 200 ms search lag: duplicates
#              (target 0) and lost changes (must be 0). Takes about a minute.
# Usage: scripts/bench-poll.sh [cost|parallel|all] [COUNT]
set -euo pipefail
what="${1:-all}"
count="${2:-5}"
cd "$(dirname "$0")/.."
if [[ "$what" == cost || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkCycleCost$' -benchtime "${count}x" ./internal/poll/jirapoll/
fi
if [[ "$what" == parallel || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkParallelPollersFullLatency$' -benchtime 1x -timeout 10m ./internal/poll/jirapoll/
fi
