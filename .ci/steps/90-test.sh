#!/usr/bin/env bash
# The README's test command, with the race detector.
set -euo pipefail
go test -race -count=1 ./...
