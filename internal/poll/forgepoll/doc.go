// Package forgepoll is what the forge backstops (github-poll,
// gitlab-poll) share: the cycle's window of discovered subjects and its
// detection loop (window.go), the sweep of scheduled discovery over a
// page source (sweep.go), the swept entities remembered per update
// (entities.go), and the run records taken as receipts: the versions
// given up on, the older records read once per version and the receipts
// built from them (receipts.go, older.go); the entity stage over the
// cycle's reads (stage.go); the part of a driver that is the same on both
// forges, its usage, the forge's clock and its receipts (backstop.go); the
// tool's own account per credential (account.go); and a configured
// input's settings, credential and reaction writer (entry.go). A driver
// supplies what
// differs: its listings and page source, its entity builder, its run or
// pipeline list and its API calls. Nothing here makes a request itself.
package forgepoll
