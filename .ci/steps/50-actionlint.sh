#!/usr/bin/env bash
# actionlint (pinned in tools/actionlint/go.mod, with shellcheck) over every GitHub workflow variant `workflows generate` writes
# (fullsend-events.yml, fullsend-poll.yml, fullsend-run.yml and, with --reusable, fullsend-run-reusable.yml),
# and those of a configuration whose harness steers (examples/steering: the run job's extra grants).
set -euo pipefail
if ! command -v shellcheck >/dev/null 2>&1; then
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq shellcheck >/dev/null 2>&1 || echo "shellcheck: apt-get install failed; actionlint runs without it"
	else
		echo "shellcheck not installed; actionlint runs without it"
	fi
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/fullsend" ./cmd/fullsend
# A local build is a development build: every variant names what it installs.
# The variants read the deploy manifests' configuration (a jira-poll input: Jira
# secrets referenced), except the --github-poll one, which has no configuration
# (no Jira secret at all), and the steering ones, which read examples/steering
# (no jira-poll input either).
for variant in "release" "release --reusable" "source" "source --reusable" "release --github-poll" \
	"release steer" "release --reusable steer"; do
	read -r mode reusable steer <<<"$variant"
	if [ "$reusable" = steer ]; then reusable="" steer=steer; fi
	dir="$tmp/github-$mode${reusable:+$reusable}${steer:+-$steer}"
	mkdir -p "$dir"
	git -C "$dir" init -q # actionlint resolves ./.github/workflows/ calls from the repository root
	version=v1.0.0
	if [ "$mode" = source ]; then version=0123456789abcdef0123456789abcdef01234567; fi
	config="$PWD/deploy/kubernetes/base/config" want=2
	if [ "$reusable" = --github-poll ]; then config="" want=0; fi
	if [ -n "$steer" ]; then config="$PWD/examples/steering/.fullsend" want=0; fi
	# From inside $dir, where no .fullsend is: without --config-dir the run has none.
	(cd "$dir" && "$tmp/fullsend" workflows generate --platform github --install "$mode" --version "$version" $reusable \
		${config:+--config-dir "$config"} --dir .github/workflows >/dev/null 2>"$tmp/generate.log") ||
		{ cat "$tmp/generate.log" >&2; exit 1; }
	for f in fullsend-events.yml fullsend-poll.yml fullsend-run.yml; do
		[ -f "$dir/.github/workflows/$f" ] || { echo "github $variant: $f not generated" >&2; exit 1; }
	done
	# The Jira secrets referenced are those the configuration reads (its base_url is in the file).
	got=$({ grep -ho 'secrets\.JIRA_[A-Z_]*' "$dir"/.github/workflows/*.yml || true; } | sort -u | wc -l)
	[ "$got" = "$want" ] || { echo "github $variant: $got Jira secrets referenced, want $want" >&2; exit 1; }
	if [ -n "$steer" ] && ! grep -q 'issues: write' "$dir/.github/workflows/fullsend-run.yml"; then
		echo "github $variant: the run job of a steering harness is not granted issues: write" >&2
		exit 1
	fi
	go tool -modfile=tools/actionlint/go.mod actionlint -shellcheck="$(command -v shellcheck || true)" "$dir"/.github/workflows/*.yml
	"$tmp/fullsend" workflows check --dir "$dir/.github/workflows" >/dev/null
	echo "actionlint and workflows check: github $variant clean"
done
