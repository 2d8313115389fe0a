#!/usr/bin/env bash
# go vet over the main module.
set -euo pipefail
go vet ./...
