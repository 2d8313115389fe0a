// Package e2e runs the generated "Run the agent" step of GitHub Actions
// and the generated GitLab agent job the way the platforms run them, with
// a hostile agent hunting for the tokens, against the Jira emulator. It
// has no non-test code.
package e2e
