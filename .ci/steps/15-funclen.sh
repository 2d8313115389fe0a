#!/usr/bin/env bash
# No function over 80 lines in cmd/ and internal/ outside tests (scripts/funclen).
set -euo pipefail
go run ./scripts/funclen
