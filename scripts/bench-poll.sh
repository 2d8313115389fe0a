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
#              moment with p=0.7, for DURATION (default 4m), then a drain.
#              Not part of `all`. Extra flags after DURATION go to the
#              benchmark, e.g. -chaos.key-title=false (shipped run-name),
#              -chaos.skew=1h or -chaos.skew=-1h (the emulators' clocks an
#              hour ahead of or behind the pollers' and runners').
#              -chaos.forge=github: the webhook path (the events workflow's
#              `fullsend dispatch` with gha-event and gha-dispatch, one
#              process per comment, never killed) races -chaos.pollers
#              github-poll pollers at grace 0s against githubsim, whose
#              run workflow has the generated concurrency group (one
#              active and one pending run per scope, a newer queued run
#              cancels the pending one) and whose rate limit is lifted;
#              -chaos.forge=gitlab: the same with gitlab-event and
#              gitlab-pipeline racing gitlab-poll against gitlabsim (a
#              resource group per scope, every waiting job kept). Use
#              -chaos.pollers=3. Every job the platform admits starts
#              (running), runs the start-up check `fullsend run` makes
#              (ghadispatch.CheckStart, gitlabpipeline.CheckSuperseded)
#              and then its agent for -chaos.run-time (default 1s), or
#              exits without it. Pollers are killed as above;
#              -chaos.subjects (issues or merge requests, default 4) and
#              -chaos.drop (share of webhook deliveries dropped, default
#              0.2) shape the race.
#              Every mode prints the same figures (targets in brackets):
#              processes, kills, changes, dispatches (runs created), lost
#              [0] (change and harness pairs newer than the newest change
#              a run that started its agent carried), duplicates [0]
#              (agents started twice for one change and harness), locks
#              left [0; n/a for the forge pollers, which hold none: runs
#              left after the drain instead], max active runs per scope
#              [1] (Jira: agents holding the lock at once; forges: runs
#              running or admitted at once), max waiting runs per scope
#              once settled [1] and the newest change not pending once
#              settled [0] (samples where the scope's newest dispatched
#              change is owed, carried by no run that started its agent,
#              and no live run yet to start its agent carries it); both
#              n/a for Jira, where no run waits on the platform.
#              Settled: the runs of a scope are sampled every 20 ms; the
#              scope is settled when every process that was alive at the
#              last change a dispatcher makes to its runs (a run created,
#              cancelled or re-run) has exited: each dispatcher settles
#              what it wrote before it exits, or it died. The other
#              samples are transient (between a dispatch and its
#              dispatcher's exit) and are reported apart: how many had a
#              second waiting run or the newest change not pending, and
#              how long the longest such state lasted. Also: runs that
#              exited at their start-up check, stale starts (an agent
#              started while a newer change's run of its scope, there
#              when its check began, was owed; target 0) and the API
#              requests (GitHub: rate-limit points) the emulator counted.
#   scale    — ISSUES issues (default 2000) seeded through the emulator's Go
#              API, POLLERS pollers (default 4) on the wall clock against
#              the emulator with 50 ms latency, 200 ms search lag and a
#              budget of 40 calls/s; idle cycles, 300 comments on 280
#              issues over 20 cycles (3 s apart), a drain, idle cycles
#              again. Prints calls per dispatched change, idle calls per
#              cycle, lost, duplicates, p50/p95/max time to dispatch,
#              lost-to-collision locks and the 429 share next to the
#              targets (docs/polling.md "Sizing"). About 1.5 minutes.
#              Extra flags go to the benchmark: -scale.idle-only (quick,
#              e.g. at 20000 issues), -scale.tied (every issue updated in
#              one millisecond), -scale.oneshot (a new driver and Jira
#              client every cycle, as cron jobs run them, each poller's
#              state directory kept; with -scale.nostate none), -scale.n,
#              -scale.m, -scale.keys (the emulator's reading of
#              issue-key comparisons: per project by default, numeric,
#              per-project-empty or rejected), -scale.interval,
#              -scale.budget, -scale.latency, -scale.seed ... (go test
#              -run '^$' -bench BenchmarkScale ./internal/poll/jirapoll/
#              -args -help lists them).
#   pacing   — the rate-budget scenario: 40 issues, 40 changes, 4 pollers,
#              a budget of 10 calls/s, one run per SEED (default 1 2 3):
#              the 429 share (target: at most 10 %), lost, duplicates.
#   burst    — the same with Jira's per-second burst limit instead (10 calls
#              per rolling second, answered 429 with Retry-After, moving no
#              X-RateLimit-* header) and no points budget.
#   forge    — the forge pollers at volume (BenchmarkVolume in
#              internal/poll/githubpoll and internal/poll/gitlabpoll):
#              ITEMS (default 500) issues, then as many pull or merge
#              requests, each commented once with a command inside the
#              window, against one github-poll poller (gha-dispatch,
#              githubsim) and one gitlab-poll poller (gitlab-pipeline,
#              gitlabsim) built from a `grace: 0s` entry: the runs the
#              first cycle dispatched (items per cycle), the cycles until
#              every item was, requests and rate-limit points per item
#              (all clients; the poller's own apart), wall time. Not part
#              of `all`. Extra flags: -forge.budget (requests_per_cycle,
#              default 1000), -forge.n (lock.n handed to the cycle),
#              -forge.latency (added to every request, e.g. 50ms),
#              -forge.cycles (at most, default 200).
# Usage: scripts/bench-poll.sh [cost|parallel|all] [COUNT]
#        scripts/bench-poll.sh forge [ITEMS] [-forge.FLAG=VALUE...]
#        scripts/bench-poll.sh scale [ISSUES] [POLLERS] [-scale.FLAG=VALUE...]
#        scripts/bench-poll.sh pacing [SEED...]
#        scripts/bench-poll.sh burst [SEED...]
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
if [[ "$what" == forge ]]; then
  items="${2:-500}"
  shift $(( $# < 2 ? $# : 2 ))
  for pkg in githubpoll gitlabpoll; do
    go test -run '^$' -bench '^BenchmarkVolume$' -benchtime 1x -timeout 30m ./internal/poll/$pkg/ \
      -args -forge.items="$items" "$@" | grep -v -E '^(goos|goarch|cpu|PASS|ok)'
  done
  exit
fi
scale() {
  go test -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -timeout 15m ./internal/poll/jirapoll/ -args "$@" |
    grep -v -E '^(goos|goarch|pkg|cpu|PASS|ok|BenchmarkScale)'
}
if [[ "$what" == scale ]]; then
  issues="${2:-2000}"
  pollers="${3:-4}"
  shift $(( $# < 3 ? $# : 3 ))
  scale -scale.issues="$issues" -scale.pollers="$pollers" "$@"
  exit
fi
if [[ "$what" == pacing ]]; then
  shift
  for seed in "${@:-1 2 3}"; do
    for s in $seed; do
      scale -scale.issues=40 -scale.comments=40 -scale.commented=40 -scale.budget=10 -scale.seed="$s"
    done
  done
  exit
fi
if [[ "$what" == burst ]]; then
  shift
  for seed in "${@:-1 2 3}"; do
    for s in $seed; do
      scale -scale.issues=40 -scale.comments=40 -scale.commented=40 -scale.budget=0 -scale.burst-limit=10 -scale.seed="$s"
    done
  done
  exit
fi
if [[ "$what" == cost || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkCycleCost$' -benchtime "${count}x" ./internal/poll/jirapoll/
fi
if [[ "$what" == parallel || "$what" == all ]]; then
  go test -run '^$' -bench '^BenchmarkParallelPollersFullLatency$' -benchtime 1x -timeout 10m ./internal/poll/jirapoll/
fi
