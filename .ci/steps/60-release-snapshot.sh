#!/usr/bin/env bash
# Snapshot release with the pinned GoReleaser into dist/; check archives, checksums and the binary's version.
# Offline: nothing is published, no image is built (no docker engine), nothing is signed.
set -euo pipefail
# The release workflow is not run here; lint it with a pinned actionlint.
go tool -modfile=tools/actionlint/go.mod actionlint .github/workflows/release.yml

goreleaser=(go tool -modfile=tools/goreleaser/go.mod goreleaser)
# GoReleaser drops all git information (commit, date) when the checkout
# has no remote, as in a local worktree; lend it one for this process only.
if ! git ls-remote --get-url >/dev/null 2>&1; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url \
		GIT_CONFIG_VALUE_0=https://github.com/fullsend-dev/fullsend.git
fi
start=$(date +%s)
"${goreleaser[@]}" check
"${goreleaser[@]}" release --snapshot --clean --skip=publish,docker,sign,sbom
echo "goreleaser snapshot: $(($(date +%s) - start))s"

fail() { echo "release snapshot: $*" >&2; exit 1; }
version=$(grep -o '"version": *"[^"]*"' dist/metadata.json | head -1 | cut -d'"' -f4)
[[ -n "$version" ]] || fail "no version in dist/metadata.json"

cd dist
for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
	archive="fullsend_${version}_${platform}.tar.gz"
	[[ -f "$archive" ]] || fail "missing $archive"
	grep -q "  $archive\$" checksums.txt || fail "$archive not in checksums.txt"
	tar -tzf "$archive" | grep -qx fullsend || fail "$archive has no top-level fullsend binary"
	echo "$archive: $(du -k "$archive" | cut -f1) KiB"
done
sha256sum -c --strict checksums.txt

# The binary for this machine, taken out of its archive, reports the
# snapshot's version through -ldflags.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "fullsend_${version}_$(go env GOOS)_$(go env GOARCH).tar.gz" -C "$tmp" fullsend
got=$("$tmp/fullsend" version -o json)
echo "$got"
grep -q "\"version\": \"v${version}\"" <<<"$got" || fail "binary reports $got, want version v${version}"
grep -q '"commit": "[0-9a-f]\{40\}"' <<<"$got" || fail "binary reports no commit: $got"
