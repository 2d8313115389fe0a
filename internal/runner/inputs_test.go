package runner

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	const ev = `{"repo":"acme/platform"}`
	const lockJSON = `{"id":"u1","driver":"jira-poll","property":"PROJ-1/fullsend.poll.acme.platform.lock"}`
	lock := &plan.PollLock{ID: "u1", Driver: "jira-poll", Property: "PROJ-1/fullsend.poll.acme.platform.lock"}
	dir := t.TempDir()
	evFile := filepath.Join(dir, "ev.json")
	if err := os.WriteFile(evFile, []byte(ev), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(ev))
	tests := []struct {
		name    string
		flags   Flags
		env     map[string]string
		stdin   string
		want    Inputs
		wantErr string
	}{
		{name: "flags win over env",
			flags: Flags{Harness: "triage", EventFile: evFile, PollLock: lockJSON, PollLockSet: true},
			env:   map[string]string{"FULLSEND_AGENT": "code", "FULLSEND_NORMALIZED_EVENT": `{"repo":"x/y"}`, "FULLSEND_POLL_LOCK": "junk"},
			want:  Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: evFile, PollLock: lock}},
		{name: "stdin", flags: Flags{Harness: "triage", EventFile: "-"}, stdin: ev,
			want: Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: "stdin"}},
		{name: "github workflow env",
			env:  map[string]string{"FULLSEND_AGENT": "triage", "FULLSEND_NORMALIZED_EVENT": ev, "FULLSEND_POLL_LOCK": lockJSON},
			want: Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: "FULLSEND_NORMALIZED_EVENT", PollLock: lock}},
		{name: "gitlab pipeline env",
			env: map[string]string{"FULLSEND_AGENT": "triage", "FULLSEND_EVENT": b64, "FULLSEND_POLL_LOCK_ID": "u1",
				"FULLSEND_POLL_LOCK_DRIVER": "jira-poll", "FULLSEND_POLL_LOCK_PROPERTY": lock.Property},
			want: Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: "FULLSEND_EVENT", PollLock: lock}},
		{name: "empty poll_lock input means no lock",
			env:  map[string]string{"FULLSEND_AGENT": "triage", "FULLSEND_NORMALIZED_EVENT": ev, "FULLSEND_POLL_LOCK": ""},
			want: Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: "FULLSEND_NORMALIZED_EVENT"}},
		{name: "explicit empty --poll-lock overrides env",
			flags: Flags{Harness: "triage", EventFile: evFile, PollLockSet: true},
			env:   map[string]string{"FULLSEND_POLL_LOCK": lockJSON},
			want:  Inputs{Harness: "triage", EventJSON: []byte(ev), EventFrom: evFile}},
		{name: "no harness", flags: Flags{EventFile: evFile}, wantErr: "no harness"},
		{name: "no event", flags: Flags{Harness: "triage"}, wantErr: "no event"},
		{name: "missing event file", flags: Flags{Harness: "triage", EventFile: filepath.Join(dir, "nope.json")}, wantErr: "nope.json"},
		{name: "empty event file", flags: Flags{Harness: "triage", EventFile: empty}, wantErr: "empty"},
		{name: "bad base64", env: map[string]string{"FULLSEND_AGENT": "t", "FULLSEND_EVENT": "!!!"}, wantErr: "FULLSEND_EVENT: not base64"},
		{name: "bad poll lock env", env: map[string]string{"FULLSEND_AGENT": "t", "FULLSEND_NORMALIZED_EVENT": ev, "FULLSEND_POLL_LOCK": `{"id":"u"}`},
			wantErr: "FULLSEND_POLL_LOCK: poll lock reference: driver"},
		{name: "split form incomplete", env: map[string]string{"FULLSEND_AGENT": "t", "FULLSEND_NORMALIZED_EVENT": ev, "FULLSEND_POLL_LOCK_ID": "u"},
			wantErr: "FULLSEND_POLL_LOCK_ID/_DRIVER/_PROPERTY"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.flags, envOf(tc.env), strings.NewReader(tc.stdin))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !IsInput(err) {
					t.Fatalf("err = %v, want input error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Harness != tc.want.Harness || string(got.EventJSON) != string(tc.want.EventJSON) || got.EventFrom != tc.want.EventFrom {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if (got.PollLock == nil) != (tc.want.PollLock == nil) || (got.PollLock != nil && *got.PollLock != *tc.want.PollLock) {
				t.Fatalf("poll lock %+v, want %+v", got.PollLock, tc.want.PollLock)
			}
		})
	}
}

func TestResolveRejectsOversizedEvent(t *testing.T) {
	big := strings.Repeat(" ", MaxEventBytes+1)
	_, err := Resolve(Flags{Harness: "t", EventFile: "-"}, envOf(nil), strings.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want size error", err)
	}
}

func FuzzDecodeBase64Event(f *testing.F) {
	for _, s := range []string{"", "e30=", "e30", " e3\n0= ", "!!", "eyJyZXBvIjoiYS9iIn0="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeBase64Event(s)
		if err != nil {
			if !IsInput(err) {
				t.Fatalf("non-input error %v", err)
			}
			return
		}
		if len(b) > MaxEventBytes {
			t.Fatalf("decoded %d bytes", len(b))
		}
	})
}
