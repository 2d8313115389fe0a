// Package chaos holds the crash benchmark of the delivery contract
// (docs/polling.md, "Delivery contract"): real `fullsend poll` processes
// against the Jira and GitHub emulators, killed with SIGKILL at random,
// while a simulated `fullsend run` takes and releases the poll locks of the
// dispatched runs. It is run by `scripts/bench-poll.sh chaos`, not by
// `go test` (BenchmarkChaos only).
package chaos
