#!/usr/bin/env bash
# Cross-build ./cmd/fullsend for the supported platforms (Linux, macOS) and Windows (builds; running agents is unsupported there).
# -trimpath as in .goreleaser.yaml, so the release snapshot reuses these compiled packages.
set -euo pipefail
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do
	echo "  $target"
	CGO_ENABLED=0 GOOS="${target%/*}" GOARCH="${target#*/}" go build -trimpath -o "$out/fullsend-${target/\//-}" ./cmd/fullsend
done
