package polllock

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// TestRunEntryRules is the table of the rules on a lock's runs that the
// runner (Claim when it starts or refreshes, Others when it releases) and
// the poller (Record after dispatching) both rely on: a run's entry is the
// one with its driver and id, else the first entry of its driver without
// an id, which it claims.
func TestRunEntryRules(t *testing.T) {
	gha := func(id string) plan.Ref { return plan.Ref{Driver: "gha-dispatch", ID: id} }
	gl := func(id string) plan.Ref { return plan.Ref{Driver: "gitlab-pipeline", ID: id} }
	local := func(id string) plan.Ref { return plan.Ref{Driver: "local", ID: id} }
	withURL := plan.Ref{Driver: "gha-dispatch", ID: "7", URL: "https://ci/7"}
	tests := []struct {
		name string
		op   string // claim, others, record
		have []plan.Ref
		in   []plan.Ref // claim/others: exactly one run; record: the dispatched refs
		want []plan.Ref
	}{
		{"claim into empty runs", "claim", nil, []plan.Ref{gha("7")}, []plan.Ref{gha("7")}},
		{"claim replaces own entry and moves it last", "claim", []plan.Ref{gha("7"), gl("1")}, []plan.Ref{withURL}, []plan.Ref{gl("1"), withURL}},
		{"claim takes the first id-less entry of its driver", "claim", []plan.Ref{gha(""), gha(""), gl("1")}, []plan.Ref{gha("7")}, []plan.Ref{gha(""), gl("1"), gha("7")}},
		{"claim ignores id-less entries of other drivers", "claim", []plan.Ref{gl("")}, []plan.Ref{gha("7")}, []plan.Ref{gl(""), gha("7")}},
		{"claim prefers its own entry over an id-less one", "claim", []plan.Ref{gha(""), gha("7")}, []plan.Ref{gha("7")}, []plan.Ref{gha(""), gha("7")}},
		{"claim drops duplicates of its own entry", "claim", []plan.Ref{gha("7"), gha("7")}, []plan.Ref{gha("7")}, []plan.Ref{gha("7")}},
		{"claim without id changes nothing", "claim", []plan.Ref{gha("")}, []plan.Ref{gha("")}, []plan.Ref{gha("")}},
		{"others: last run leaves nothing", "others", []plan.Ref{gha("7")}, []plan.Ref{gha("7")}, nil},
		{"others: run of an empty lock leaves nothing", "others", nil, []plan.Ref{local("3")}, nil},
		{"others keep the other runs", "others", []plan.Ref{gha("7"), gl("1"), local("2")}, []plan.Ref{gl("1")}, []plan.Ref{gha("7"), local("2")}},
		{"others: a run that never claimed removes the id-less entry", "others", []plan.Ref{gha(""), gha("")}, []plan.Ref{gha("7")}, []plan.Ref{gha("")}},
		{"others drop plan-only entries", "others", []plan.Ref{{Driver: "json"}, {Driver: "gha-matrix", ID: "x"}, gha("7")}, []plan.Ref{gha("7")}, nil},
		{"record into a lock no run took yet", "record", nil, []plan.Ref{gha("7"), gl("1")}, []plan.Ref{gha("7"), gl("1")}},
		{"record skips runs already recorded", "record", []plan.Ref{withURL}, []plan.Ref{gha("7"), gl("1")}, []plan.Ref{withURL, gl("1")}},
		{"record: an id-less ref matches the entry a run claimed", "record", []plan.Ref{gha("9")}, []plan.Ref{gha("")}, []plan.Ref{gha("9")}},
		{"record: an id-less ref does not match a run another ref names", "record", []plan.Ref{gha("9")}, []plan.Ref{gha("9"), gha("")}, []plan.Ref{gha("9"), gha("")}},
		{"record: each entry matches one ref", "record", []plan.Ref{gha("9")}, []plan.Ref{gha(""), gha("")}, []plan.Ref{gha("9"), gha("")}},
		{"record: duplicate refs of one run", "record", []plan.Ref{gha("7"), gha("7")}, []plan.Ref{gha("7"), gha("7")}, []plan.Ref{gha("7"), gha("7"), gha("7")}},
		{"record keeps refs of other drivers", "record", []plan.Ref{local("1")}, []plan.Ref{gl("")}, []plan.Ref{local("1"), gl("")}},
		{"record drops the placeholder of a run that did not start", "record", []plan.Ref{gha(""), gha("7")}, []plan.Ref{gha("7")}, []plan.Ref{gha("7")}},
		{"record replaces unclaimed placeholders by the run started", "record", []plan.Ref{gha(""), gha("")}, []plan.Ref{gha("7")}, []plan.Ref{gha("7")}},
		{"record: an id-less ref keeps one placeholder", "record", []plan.Ref{gha(""), gha("")}, []plan.Ref{gha("")}, []plan.Ref{gha("")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			have := slices.Clone(tc.have)
			var got []plan.Ref
			switch tc.op {
			case "claim":
				got = Claim(have, tc.in[0])
			case "others":
				got = Others(have, tc.in[0])
			case "record":
				got = Record(have, tc.in)
			default:
				t.Fatalf("unknown op %q", tc.op)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("%s(%v, %v) = %v, want %v", tc.op, tc.have, tc.in, got, tc.want)
			}
			if !slices.Equal(have, tc.have) {
				t.Fatalf("%s modified its input: %v", tc.op, have)
			}
		})
	}
}

// TestPlaceholdersFit: a lock written with one placeholder per planned run
// fits exactly the runs of as many per driver; plan-only entries do not
// count.
func TestPlaceholdersFit(t *testing.T) {
	gha := func(id string) plan.Ref { return plan.Ref{Driver: "gha-dispatch", ID: id} }
	two := Placeholders("gha-dispatch", 2)
	if !slices.Equal(two, []plan.Ref{gha(""), gha("")}) || Placeholders("local", 0) != nil {
		t.Fatalf("Placeholders = %v", two)
	}
	tests := []struct {
		runs, started []plan.Ref
		fits          bool
	}{
		{two, []plan.Ref{gha("1"), gha("2")}, true},
		{two, []plan.Ref{gha(""), gha("2")}, true},
		{two, []plan.Ref{gha("1")}, false},
		{two, []plan.Ref{gha("1"), gha("2"), gha("3")}, false},
		{two, []plan.Ref{gha("1"), {Driver: "local", ID: "2"}}, false},
		{nil, nil, true},
		{nil, []plan.Ref{{Driver: "json"}}, true},
	}
	for _, tc := range tests {
		if got := Fits(tc.runs, tc.started); got != tc.fits {
			t.Errorf("Fits(%v, %v) = %v, want %v", tc.runs, tc.started, got, tc.fits)
		}
	}
}

func TestRef(t *testing.T) {
	const prop = "fullsend.poll.acme.platform.lock"
	tests := []struct {
		in, key, prop, wantErr string
	}{
		{in: "PROJ-12/" + prop, key: "PROJ-12", prop: prop},
		{in: "A_1-9/x", key: "A_1-9", prop: "x"},
		{in: "PROJ-12", wantErr: "want ISSUE-KEY/property.key"},
		{in: "", wantErr: "want ISSUE-KEY/property.key"},
		{in: "proj/x", wantErr: `"proj" is not a Jira issue key`},
		{in: "12/x", wantErr: `"12" is not a Jira issue key`},
		{in: "P-1/x", key: "P-1", prop: "x"},       // Jira Data Center allows one-letter project keys
		{in: "PROJ-0/x", key: "PROJ-0", prop: "x"}, // and Jira accepts the number 0
		{in: "-1/x", wantErr: `"-1" is not a Jira issue key`},
		{in: "PROJ-012/x", wantErr: `"PROJ-012" is not a Jira issue key`},
		{in: "ÄB-1/x", wantErr: "is not a Jira issue key"},
		{in: "PROJ-12/", wantErr: `"" is not a property key`},
		{in: "PROJ-12/a/b", wantErr: `"a/b" is not a property key`},
		{in: "PROJ-12/a b", wantErr: `"a b" is not a property key`},
		{in: "PROJ-12/" + strings.Repeat("x", jirakey.MaxPropertyChars), key: "PROJ-12", prop: strings.Repeat("x", jirakey.MaxPropertyChars)},
		{in: "PROJ-12/" + strings.Repeat("x", jirakey.MaxPropertyChars+1), wantErr: "is not a property key"},
	}
	for _, tc := range tests {
		k, p, err := ParseRef(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || k != "" || p != "" {
				t.Errorf("ParseRef(%.40q) = %q, %q, %v; want error containing %q", tc.in, k, p, err, tc.wantErr)
			}
			continue
		}
		if err != nil || k != tc.key || p != tc.prop || FormatRef(k, p) != tc.in {
			t.Errorf("ParseRef(%.40q) = %q, %q, %v", tc.in, k, p, err)
		}
	}
}

func TestHeldBy(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		id   string
		ts   time.Time
		want bool
	}{
		{"u1", now.Add(-time.Minute), true},
		{"u2", now.Add(-time.Minute), false},
		{"u1", now.Add(-16 * time.Minute), false},
		{"u1", now.Add(16 * time.Minute), false},
	} {
		l := Lock{ID: tc.id, TS: tc.ts, Phase: PhaseRunning}
		if got := l.HeldBy("u1", now, 15*time.Minute); got != tc.want {
			t.Errorf("%+v HeldBy(u1) = %v", l, got)
		}
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"PROJ-1/fullsend.poll.acme.platform.lock", "PROJ-1", "/x", "proj-0/x", "A1-22/a/b", "ÄB-1/x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, p, err := ParseRef(s)
		if err != nil {
			return
		}
		if !jirakey.ValidIssue(k) || !jirakey.ValidProperty(p) || strings.Contains(p, "/") {
			t.Fatalf("accepted %q as %q + %q", s, k, p)
		}
		if FormatRef(k, p) != s {
			t.Fatalf("round trip of %q gave %q", s, FormatRef(k, p))
		}
	})
}
