package runner

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

func TestParsePollLock(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *plan.PollLock
		wantErr string
	}{
		{"empty means no lock", "", nil, ""},
		{"blank means no lock", "  \n", nil, ""},
		{"valid", `{"id":"u1","driver":"jira-poll","property":"PROJ-12/fullsend.poll.acme.platform.lock"}`,
			&plan.PollLock{ID: "u1", Driver: "jira-poll", Property: "PROJ-12/fullsend.poll.acme.platform.lock"}, ""},
		{"not json", `id=u1`, nil, "not a {"},
		{"unknown field", `{"id":"u1","driver":"jira-poll","property":"P-1/x","extra":1}`, nil, "unknown field"},
		{"trailing data", `{"id":"u1","driver":"jira-poll","property":"PROJ-1/x"} {}`, nil, "trailing data"},
		{"missing id", `{"driver":"jira-poll","property":"PROJ-1/x"}`, nil, "missing id"},
		{"other driver", `{"id":"u1","driver":"gitlab-poll","property":"PROJ-1/x"}`, nil, `driver "gitlab-poll" is not supported`},
		{"no slash", `{"id":"u1","driver":"jira-poll","property":"PROJ-1"}`, nil, "want ISSUE-KEY/property.key"},
		{"bad issue key", `{"id":"u1","driver":"jira-poll","property":"12/x"}`, nil, `"12" is not a Jira issue key`},
		{"bad property key", `{"id":"u1","driver":"jira-poll","property":"PROJ-1/a b"}`, nil, `"a b" is not a property key`},
		{"empty property key", `{"id":"u1","driver":"jira-poll","property":"PROJ-1/"}`, nil, "is not a property key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePollLock(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !IsInput(err) {
					t.Fatalf("err = %v, want input error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func FuzzParsePollLock(f *testing.F) {
	for _, s := range []string{"", `{"id":"u","driver":"jira-poll","property":"AB-1/fullsend.poll.a.b.lock"}`,
		`{"id":"u","driver":"jira-poll","property":"AB-1/"}`, `{"id":1}`, `[`, `{"id":"u","driver":"jira-poll","property":"/"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pl, err := ParsePollLock(s)
		if err != nil {
			if !IsInput(err) {
				t.Fatalf("non-input error %T: %v", err, err)
			}
			return
		}
		if pl == nil {
			if strings.TrimSpace(s) != "" {
				t.Fatalf("nil lock for non-blank %q", s)
			}
			return
		}
		issue, prop, err := SplitProperty(pl.Property)
		if err != nil || issue+"/"+prop != pl.Property || pl.ID == "" || pl.Driver != DriverJiraPoll {
			t.Fatalf("accepted invalid reference %+v (split err %v)", pl, err)
		}
	})
}
