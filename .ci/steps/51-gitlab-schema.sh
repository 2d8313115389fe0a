#!/usr/bin/env bash
# Every generated .gitlab-ci.yml variant against GitLab's CI schema (../shared/api-specs/gitlab-ci.schema.json; skipped if absent).
set -euo pipefail
schema="$(cd .. && pwd)/shared/api-specs/gitlab-ci.schema.json"
if [ ! -f "$schema" ]; then
	echo "skipped: $schema is absent"
	exit 0
fi
FULLSEND_GITLAB_CI_SCHEMA="$schema" go test -count=1 -run '^(TestGeneratedMatchesGitLabSchema|TestSchemaRejectsBrokenFile)$' -v ./internal/workflows/gitlabci/
