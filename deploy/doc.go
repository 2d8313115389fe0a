// Package deploy holds fullsend's deployment manifests (a kustomize base
// with CronJob and Deployment overlays, Prometheus alerts, a Grafana
// dashboard under grafana/) and the tests that keep them honest: they
// render, decode strictly into Kubernetes API types, reference only
// objects they define, carry a configuration that `fullsend validate`
// accepts, and alert on and chart metrics fullsend exports.
//
// It is a separate Go module so that the Kubernetes libraries stay out of
// the fullsend binary's dependencies; .ci/steps/70-deploy.sh runs its tests.
package deploy
