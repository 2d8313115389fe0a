#!/usr/bin/env bash
# Deploy manifests: render both kustomize overlays, decode strictly, validate the embedded config; check the alerts and the Grafana dashboard against the exported metrics.
# deploy/ is its own Go module (Kubernetes libraries stay out of the binary).
set -euo pipefail
cd deploy
go vet ./...
go test -count=1 ./...
