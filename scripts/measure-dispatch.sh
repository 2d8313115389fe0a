#!/usr/bin/env bash
# Measures process start-to-exit of `fullsend dispatch` for one event with 20
# harnesses (json output). Prints the median, min and max over RUNS runs.
# Usage: scripts/measure-dispatch.sh [RUNS]
set -euo pipefail
runs="${1:-50}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/fullsend" ./cmd/fullsend)
mkdir -p "$work/.fullsend/harness"
{
  echo "version: 1"
  echo "repo: acme/platform"
  echo "agents:"
  for i in $(seq 1 20); do
    echo "  - name: h$i"
    echo "    source: harness/h$i.yaml"
  done
} > "$work/.fullsend/config.yaml"
for i in $(seq 1 20); do
  cat > "$work/.fullsend/harness/h$i.yaml" <<YAML
role: r$i
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-h$i"
run:
  command: ["true"]
YAML
done
cp "$root/examples/events/triage-comment.json" "$work/event.json"
sed -i 's#/fs-triage#/fs-h7#g' "$work/event.json"
cd "$work"
# Warm up once and check the plan holds exactly one run.
out="$(./fullsend dispatch --input-file event.json --log-level error)"
case "$out" in *'"agent":"h7"'*) ;; *) echo "unexpected plan: $out" >&2; exit 1 ;; esac
times=()
for _ in $(seq 1 "$runs"); do
  s=$(date +%s%N)
  ./fullsend dispatch --input-file event.json --log-level error >/dev/null
  e=$(date +%s%N)
  times+=($(( (e - s) / 1000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
n=${#sorted[@]}
echo "fullsend dispatch, 20 harnesses, $n runs: median $(( sorted[n/2] / 1000 )) ms, min $(( sorted[0] / 1000 )) ms, max $(( sorted[n-1] / 1000 )) ms"
