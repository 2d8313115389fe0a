package ghadispatch

import (
	"context"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// BenchmarkDispatch dispatches one run per iteration to the loopback
// emulator (HTTP round trip included).
func BenchmarkDispatch(b *testing.B) {
	s := githubsim.New(githubsim.Options{Token: testToken, RateLimit: 1 << 30, Repos: []githubsim.Repo{{
		FullName: "acme/platform", Workflows: []githubsim.Workflow{{File: "fullsend-run.yml"}}}}})
	u, err := s.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	d, err := New(Options{APIURL: u, Token: testToken, Repo: "acme/platform", Ref: "main"})
	if err != nil {
		b.Fatal(err)
	}
	defer d.client.Client().CloseIdleConnections()
	run := jiraRun(b)
	runs := []plan.Run{run}
	b.ReportAllocs()
	for b.Loop() {
		if res := d.Dispatch(context.Background(), runs); res[0].Err != nil {
			b.Fatal(res[0].Err)
		}
	}
}
