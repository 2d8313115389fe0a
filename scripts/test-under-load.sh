#!/usr/bin/env bash
# Runs the whole test suite N times in a row (default 5) with the race
# detector while busy loops keep every core loaded, and reports how many
# runs failed. A test that passes only because the machine was idle fails
# here. Usage: scripts/test-under-load.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
cores="$(nproc)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq "$cores"); do
	( while :; do :; done ) &
	pids+=("$!")
done
failed=0
for i in $(seq "$runs"); do
	start=$(date +%s)
	if go test -race -count=1 ./... >"/tmp/fullsend-load-$i.log" 2>&1; then
		echo "run $i: ok ($(( $(date +%s) - start ))s)"
	else
		failed=$((failed + 1))
		echo "run $i: FAILED ($(( $(date +%s) - start ))s), log /tmp/fullsend-load-$i.log"
		grep -E '^(--- FAIL|FAIL)' "/tmp/fullsend-load-$i.log" | head -20
	fi
done
echo "$((runs - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
