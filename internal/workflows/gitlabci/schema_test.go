package gitlabci

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// schemaPath is GitLab's own CI schema in the shared folder next to the
// repository; FULLSEND_GITLAB_CI_SCHEMA overrides it.
func schemaPath() string {
	if p := os.Getenv("FULLSEND_GITLAB_CI_SCHEMA"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "..", "shared", "api-specs", "gitlab-ci.schema.json")
}

// schemaVariants are every .gitlab-ci.yml `workflows generate` can write.
var schemaVariants = map[string]Options{
	"release":           {Install: testPin},
	"release mirror":    {Install: release.Pin{Mode: release.Download, Version: "v1.2.3", BaseURL: "https://mirror.example/fs"}},
	"agent token":       {Install: testPin, AgentToken: true},
	"own image":         {Install: testPin, Image: "registry.example.com/tools" + digest},
	"unpinned image":    {Install: testPin, Image: "alpine:3.22", AllowUnpinnedImage: true},
	"source":            {Install: release.Pin{Mode: release.Source, Version: "0123abcd0123abcd0123abcd0123abcd0123abcd"}, AllowUnpinnedImage: true},
	"source with token": {Install: release.Pin{Mode: release.Source, Version: "v1.2.3"}, AllowUnpinnedImage: true, AgentToken: true},
}

// loadSchema compiles GitLab's CI schema, or skips the test when the
// file is absent.
func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	p := schemaPath()
	if _, err := os.Stat(p); os.IsNotExist(err) {
		t.Skipf("GitLab CI schema %s is absent; skipping the schema check", p)
	}
	sch, err := jsonschema.NewCompiler().Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestGeneratedMatchesGitLabSchema validates every generated variant
// against GitLab's CI JSON schema.
func TestGeneratedMatchesGitLabSchema(t *testing.T) {
	sch := loadSchema(t)
	for name, o := range schemaVariants {
		t.Run(name, func(t *testing.T) {
			files, err := Generate(o)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := yaml.Unmarshal(files[FileName], &v); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("%s does not match GitLab's CI schema: %v", FileName, err)
			}
		})
	}
}

// TestSchemaRejectsBrokenFile shows the schema check can fail.
func TestSchemaRejectsBrokenFile(t *testing.T) {
	sch := loadSchema(t)
	inst := map[string]any{"job": map[string]any{"script": []any{"x"}, "interruptible": "sometimes"}}
	if err := sch.Validate(inst); err == nil {
		t.Fatal("a job with interruptible: \"sometimes\" passed the schema")
	}
}
