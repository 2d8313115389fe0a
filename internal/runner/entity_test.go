package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

func jiraEntityJSON(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "jira-work-item.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The entity reaches the agent as FULLSEND_ENTITY_FILE, a private file
// beside the event file, removed at teardown.
func TestRunWritesTheEntityFile(t *testing.T) {
	en, err := entity.Decode(jiraEntityJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	var log syncio.Buffer
	dir := t.TempDir()
	envOut, enOut := filepath.Join(dir, "env"), filepath.Join(dir, "entity")
	spec := testSpec(t, lockedStore(), &log, "env="+envOut, "entity="+enOut)
	spec.Entity = en
	if res, err := Run(context.Background(), spec); err != nil || res.ExitCode != 0 {
		t.Fatalf("code %d err %v\n%s", res.ExitCode, err, log.String())
	}
	env, err := os.ReadFile(envOut)
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for _, l := range strings.Split(string(env), "\n") {
		if v, ok := strings.CutPrefix(l, EnvEntityFile+"="); ok {
			path = v
		}
	}
	if path == "" || !strings.HasPrefix(path, spec.TempDir) || filepath.Base(path) != "entity.json" {
		t.Fatalf("%s = %q, want entity.json in the private temp dir %q", EnvEntityFile, path, spec.TempDir)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("entity file not removed at teardown: %v", err)
	}
	got, err := os.ReadFile(enOut)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(en)
	if strings.TrimSpace(string(got)) != string(want) {
		t.Fatalf("entity file = %s, want %s", got, want)
	}
}

func TestEntityFileIsPrivate(t *testing.T) {
	en, err := entity.Decode(jiraEntityJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	ef, err := writeEventFile(t.TempDir(), jiraEvent())
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Remove()
	if err := ef.writeEntity(en); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(ef.EntityPath)
	if err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(ef.EntityPath) != filepath.Dir(ef.Path) {
		t.Fatalf("entity file %s mode %v (%v), want 0600 beside the event", ef.EntityPath, fi.Mode(), err)
	}
}

// The entity input: JSON or base64 from the environment, validated and
// checked against the event; absent for event-only runs.
func TestResolveAndDecodeEntity(t *testing.T) {
	doc := jiraEntityJSON(t)
	other := strings.Replace(string(doc), `"id": 10042`, `"id": 10043`, 1)
	tests := []struct {
		name    string
		env     map[string]string
		none    bool
		errWant string
	}{
		{name: "event-only", env: map[string]string{}, none: true},
		{name: "json", env: map[string]string{EnvNormalizedEntity: string(doc)}},
		{name: "base64", env: map[string]string{EnvEntityBase64: base64.StdEncoding.EncodeToString(doc)}},
		{name: "not base64", env: map[string]string{EnvEntityBase64: "!!"}, errWant: "FULLSEND_ENTITY: not base64"},
		{name: "invalid", env: map[string]string{EnvNormalizedEntity: `{"kind":"x"}`}, errWant: "entity from FULLSEND_NORMALIZED_ENTITY"},
		{name: "another entity", env: map[string]string{EnvNormalizedEntity: other}, errWant: "but the event is about jira:acme/platform:work_item:10042"},
		{name: "too large", env: map[string]string{EnvNormalizedEntity: strings.Repeat(" ", entity.DefaultMaxBytes+1) + "{}"}, errWant: "entity larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{EnvAgent: "triage"}
			for k, v := range tc.env {
				env[k] = v
			}
			evJSON, _ := json.Marshal(jiraEvent())
			env[envNormalizedEvent] = string(evJSON)
			in, err := Resolve(Flags{}, envOf(env), strings.NewReader(""))
			var en *entity.Entity
			if err == nil {
				var ev = jiraEvent()
				en, err = DecodeEntity(in, ev)
			}
			var ie *InputError
			switch {
			case tc.errWant != "":
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.errWant) {
					t.Fatalf("err %v, want an InputError with %q", err, tc.errWant)
				}
			case err != nil:
				t.Fatal(err)
			case tc.none != (en == nil):
				t.Fatalf("entity %v", en)
			}
		})
	}
}

// The GitLab pipeline variable of the entity is the one fullsend run reads.
func TestEntityVariableMatchesGitLab(t *testing.T) {
	if glapi.VarEntity != EnvEntityBase64 {
		t.Fatalf("the pipeline sets %s, fullsend run reads %s", glapi.VarEntity, EnvEntityBase64)
	}
	if plan.EnvVar(plan.InNormalizedEntity) != EnvNormalizedEntity {
		t.Fatalf("the workflow sets %s, fullsend run reads %s", plan.EnvVar(plan.InNormalizedEntity), EnvNormalizedEntity)
	}
}

// FuzzEntityInput: whatever the environment holds, the entity input is
// either a valid entity of the event or an *InputError, never a panic.
func FuzzEntityInput(f *testing.F) {
	doc, err := os.ReadFile(filepath.Join("..", "entity", "testdata", "jira-work-item.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(doc), false)
	f.Add(base64.StdEncoding.EncodeToString(doc), true)
	f.Add(`{"kind":"work_item"}`, false)
	f.Add("!!", true)
	f.Add("", false)
	f.Fuzz(func(t *testing.T, value string, b64 bool) {
		name := EnvNormalizedEntity
		if b64 {
			name = EnvEntityBase64
		}
		data, from, err := readEntity(func(k string) string {
			if k == name {
				return value
			}
			return ""
		})
		var ie *InputError
		if err != nil {
			if !errors.As(err, &ie) {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		en, err := DecodeEntity(Inputs{EntityJSON: data, EntityFrom: from}, jiraEvent())
		switch {
		case err != nil && !errors.As(err, &ie):
			t.Fatalf("%T %v", err, err)
		case err == nil && en != nil && en.Validate() != nil:
			t.Fatalf("an invalid entity was accepted: %v", en.Validate())
		}
	})
}
