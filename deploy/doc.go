// Package deploy holds fullsend's deployment manifests (a kustomize base
// with CronJob and Deployment overlays, Prometheus alerts, a Grafana
// dashboard under grafana/) and the tests that keep them honest: they
// render, decode strictly into Kubernetes API types, reference only
// objects they define (and the credentials Secret that docs/deploy.md
// creates before the first apply, which no overlay contains), carry a
// configuration that `fullsend validate` accepts, probe readiness and
// liveness on the endpoints that mean them, label every object, and alert
// on and chart metrics fullsend exports (the dashboard's queries through
// the Prometheus project's own PromQL parser and engine).
//
// It is a separate Go module so that the Kubernetes libraries stay out of
// the fullsend binary's dependencies; .ci/steps/70-deploy.sh runs its tests.
package deploy
