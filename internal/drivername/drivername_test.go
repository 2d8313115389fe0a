package drivername

import (
	"slices"
	"testing"
)

func TestOutputCapabilities(t *testing.T) {
	cases := []struct {
		name                                     string
		plan, dispatch, ids, cancel, native, one bool
	}{
		{JSON, true, false, false, false, false, false},
		{GHAMatrix, true, false, false, false, false, false},
		{GHADispatch, false, true, true, true, true, false},
		{GitLabPipeline, false, true, true, true, false, false},
		{Local, false, false, true, false, false, true},
	}
	for _, tc := range cases {
		o, ok := LookupOutput(tc.name)
		if !ok {
			t.Fatalf("%s: not registered", tc.name)
		}
		got := []bool{o.PrintsPlan, o.Dispatches, o.RunIDs, o.Cancels, o.CoalescesNatively, o.OneShotBreaker()}
		want := []bool{tc.plan, tc.dispatch, tc.ids, tc.cancel, tc.native, tc.one}
		if !slices.Equal(got, want) {
			t.Errorf("%s: capabilities %v, want %v", tc.name, got, want)
		}
		if PrintsPlan(tc.name) != tc.plan {
			t.Errorf("PrintsPlan(%s) = %v", tc.name, !tc.plan)
		}
	}
	if _, ok := LookupOutput("carrier-pigeon"); ok || PrintsPlan("carrier-pigeon") {
		t.Error("an unknown output driver was found")
	}
	if got := OutputNames(); !slices.Equal(got, []string{JSON, GHAMatrix, GHADispatch, GitLabPipeline, Local}) {
		t.Errorf("OutputNames = %v", got)
	}
}

func TestInputs(t *testing.T) {
	if got := PollInputNames(); !slices.Equal(got, []string{JiraPoll, GitLabPoll, GitHubPoll}) {
		t.Errorf("PollInputNames = %v", got)
	}
	if in, ok := LookupInput(GitLabPoll); !ok || !in.Polls || !in.NoLocks {
		t.Errorf("LookupInput(%s) = %+v, %v", GitLabPoll, in, ok)
	}
	for _, name := range []string{JiraPoll, JSONIn, GHAEvent} {
		if in, ok := LookupInput(name); !ok || in.Polls != (name == JiraPoll) || in.NoLocks {
			t.Errorf("LookupInput(%s) = %+v, %v", name, in, ok)
		}
	}
	if _, ok := LookupInput("carrier-pigeon"); ok {
		t.Error("an unknown input driver was found")
	}
}
