#!/usr/bin/env bash
# The README's first command: the whole pipeline on embedded emulators.
set -euo pipefail
go run ./cmd/fullsend demo --log-format json
