#!/usr/bin/env bash
# Release check: .goreleaser.yaml validated by the pinned GoReleaser (check), then one archive for this machine built as the release builds it (ldflags from .goreleaser.yaml), named as the release names it, verified with sha256sum -c against its checksums.txt, and its binary's version.
# The full snapshot (every platform, the image) is left to the release workflow; nothing is published or signed here.
set -euo pipefail
# The release workflow is not run here; lint it with a pinned actionlint.
go tool -modfile=tools/actionlint/go.mod actionlint .github/workflows/release.yml

start=$(date +%s)
go tool -modfile=tools/goreleaser/go.mod goreleaser check
echo "goreleaser check: $(($(date +%s) - start))s"

fail() { echo "release check: $*" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The values GoReleaser fills into the templates of .goreleaser.yaml, for a
# snapshot of this commit: {{ .Version }} (incpatch of the last tag, or
# 0.0.1, then -snapshot-<short commit>), {{ .FullCommit }}, {{ .CommitDate }}
# and {{ .CommitTimestamp }}.
commit=$(git rev-parse HEAD)
date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)
timestamp=$(git log -1 --format=%ct HEAD)
last=$(git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null || echo v0.0.0)
IFS=. read -r major minor patch <<<"${last#v}"
version="$major.$minor.$((${patch%%[!0-9]*} + 1))-snapshot-$(git rev-parse --short HEAD)"

# The release's ldflags, taken from .goreleaser.yaml itself so that the two
# cannot drift: the list items under "ldflags:" up to the next key.
ldflags=$(sed -n '/^ *ldflags:/,/^ *[a-z_]*:/{/^ *- /p}' .goreleaser.yaml | sed 's/^ *- //' |
	sed -e "s/{{ \.Version }}/$version/g" -e "s/{{ \.FullCommit }}/$commit/g" -e "s/{{ \.CommitDate }}/$date/g" | tr '\n' ' ')
[[ "$ldflags" == *internal/version.Version=v$version* && "$ldflags" != *"{{"* ]] ||
	fail "could not read the ldflags of .goreleaser.yaml: $ldflags"
grep -q -- '- -trimpath\|flags: \[-trimpath\]' .goreleaser.yaml || fail ".goreleaser.yaml builds without -trimpath"
grep -q 'CGO_ENABLED=0' .goreleaser.yaml || fail ".goreleaser.yaml builds with cgo"

goos=$(go env GOOS) goarch=$(go env GOARCH)
# The archive name of internal/workflows/release.ArchiveName, which the
# generated install step downloads (TestGoReleaserNamesTheAssets keeps
# .goreleaser.yaml's name_template equal to it).
archive="fullsend_${version}_${goos}_${goarch}.tar.gz"
mkdir -p "$out/stage" "$out/dist"
CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "$ldflags" -o "$out/stage/fullsend" ./cmd/fullsend
touch -d "@$timestamp" "$out/stage/fullsend" # mod_timestamp
cp README.md "$out/stage/"
mkdir "$out/stage/docs" && cp docs/*.md "$out/stage/docs/"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$timestamp" -C "$out/stage" -czf "$out/dist/$archive" fullsend README.md docs
(cd "$out/dist" && sha256sum "$archive" >checksums.txt)
echo "$archive: $(du -k "$out/dist/$archive" | cut -f1) KiB"

cd "$out/dist"
sha256sum -c --strict checksums.txt
tar -tzf "$archive" | grep -x fullsend >/dev/null || fail "$archive has no top-level fullsend binary"
mkdir "$out/x"
tar -xzf "$archive" -C "$out/x" fullsend
got=$("$out/x/fullsend" version -o json)
echo "$got"
grep -q "\"version\": \"v${version}\"" <<<"$got" || fail "binary reports $got, want version v${version}"
grep -q "\"commit\": \"$commit\"" <<<"$got" || fail "binary reports $got, want commit $commit"
