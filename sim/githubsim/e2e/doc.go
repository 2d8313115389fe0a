// Package e2e holds end-to-end tests that run fullsend commands against the
// Jira and GitHub emulators together (and, for steering, the GitLab
// emulator). It has no non-test code.
package e2e
