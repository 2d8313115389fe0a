#!/usr/bin/env bash
# The GitLab acquire-versus-cancel race, 50 times.
set -euo pipefail
go test -race -count=50 -run '^TestAcquireVersusCancelRace$' ./internal/output/gitlabpipeline/
