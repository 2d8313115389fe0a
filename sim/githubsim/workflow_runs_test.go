package githubsim

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestParseCreated(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		q    string
		want []bool // for at-1s, at, at+1s
		bad  bool
	}{
		{q: "", want: []bool{true, true, true}},
		{q: ">=2026-05-01T10:00:00Z", want: []bool{false, true, true}},
		{q: ">2026-05-01T10:00:00Z", want: []bool{false, false, true}},
		{q: "<=2026-05-01T10:00:00Z", want: []bool{true, true, false}},
		{q: "<2026-05-01T10:00:00Z", want: []bool{true, false, false}},
		{q: "2026-05-01T10:00:00Z..2026-05-01T10:00:01Z", want: []bool{false, true, true}},
		{q: "2026-05-01", want: []bool{true, true, true}},
		{q: ">=yesterday", bad: true},
		{q: "a..b", bad: true},
	}
	for _, tc := range cases {
		f, err := parseCreated(tc.q)
		if tc.bad {
			if err == nil {
				t.Errorf("parseCreated(%q) accepted", tc.q)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseCreated(%q): %v", tc.q, err)
			continue
		}
		for i, d := range []time.Duration{-time.Second, 0, time.Second} {
			if got := f(at.Add(d)); got != tc.want[i] {
				t.Errorf("parseCreated(%q)(at%+v) = %v, want %v", tc.q, d, got, tc.want[i])
			}
		}
	}
}

func TestWorkflowByID(t *testing.T) {
	s := New(Options{Token: "t", Repos: []Repo{{FullName: "o/r", DefaultBranch: "main",
		Workflows: []Workflow{{File: "run.yml", Inputs: []string{"a"}}}}}})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := hashID("workflow:o/r", "run.yml")
	for _, tc := range []struct {
		name string
		want int
	}{{"run.yml", 200}, {strconv.FormatInt(id, 10), 200}, {strconv.FormatInt(id+1, 10), 404}} {
		req, _ := http.NewRequest(http.MethodGet, base+"repos/o/r/actions/workflows/"+tc.name+"/runs", nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}
