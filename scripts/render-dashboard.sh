#!/usr/bin/env bash
# Redraws docs/img/dashboard.png, the picture of the Grafana dashboard
# (deploy/grafana/fullsend.json) in docs/operations.md: two pollers run
# MINUTES simulated minutes (default 60) of cycles against the Jira and
# GitHub emulators on a fake clock, their metrics are scraped once a
# minute, and every panel's query is evaluated over the scrapes and drawn
# (deploy/grafana/dashboardpng). No Grafana or browser is needed. The
# pollers race, so each run draws slightly different lines.
# Usage: scripts/render-dashboard.sh [MINUTES] [SEED]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/deploy"
go run ./grafana/dashboardpng -dashboard grafana/fullsend.json -out "$root/docs/img/dashboard.png" \
	-minutes "${1:-60}" -seed "${2:-1}"
ls -l "$root/docs/img/dashboard.png"
