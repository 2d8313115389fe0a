// Package e2e holds end-to-end tests that run fullsend commands against the
// Jira and GitHub emulators together. It has no non-test code.
package e2e
