// Package apispec finds the vendors' published API descriptions the
// emulators' contract tests check them against (../shared/api-specs next
// to the module root), and validates GitHub answers against the response
// schemas of GitHub's OpenAPI 3.0 description with a JSON Schema validator.
// It is used by tests only.
package apispec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// File names of the descriptions in the shared directory.
const (
	GitHubFile = "github-rest.openapi.json"
	JiraFile   = "jira-cloud-platform-v3.openapi.json"
)

// Path returns the path of the description file in
// ../shared/api-specs relative to the module root (the directory that
// holds go.mod above the test's directory); it skips the test, saying
// why, when the file is absent.
func Path(t testing.TB, file string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "api-specs", file)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("API description %s not found at %s; contract test skipped", file, p)
	}
	return p
}

// OpenAPI is a loaded OpenAPI 3.0 description whose response schemas are
// converted to JSON Schema on first use, one operation at a time.
type OpenAPI struct {
	paths map[string]any
	comps map[string]any

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var (
	ghOnce sync.Once
	ghDoc  *OpenAPI
	ghErr  error
)

// GitHub loads GitHub's REST description once per test binary (or skips
// when it is absent).
func GitHub(t testing.TB) *OpenAPI {
	t.Helper()
	p := Path(t, GitHubFile)
	ghOnce.Do(func() { ghDoc, ghErr = Load(p) })
	if ghErr != nil {
		t.Fatalf("loading %s: %v", p, ghErr)
	}
	return ghDoc
}

// Load reads an OpenAPI 3.0 description.
func Load(path string) (*OpenAPI, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	paths, _ := doc["paths"].(map[string]any)
	comps, _ := doc["components"].(map[string]any)
	if paths == nil || comps == nil {
		return nil, fmt.Errorf("%s: no paths or components", path)
	}
	return &OpenAPI{paths: paths, comps: comps, compiled: map[string]*jsonschema.Schema{}}, nil
}

// SpecPath returns the description's path template that the route
// pattern (ServeMux style: "/repos/{owner}/{repo}/actions/runs/{id}")
// names for method: the same literal segments, a parameter wherever the
// pattern has one. ok is false when none or several match.
func (o *OpenAPI) SpecPath(method, pattern string) (string, bool) {
	want := strings.Split(pattern, "/")
	var found []string
	for p, item := range o.paths {
		ops, _ := item.(map[string]any)
		if ops[strings.ToLower(method)] == nil {
			continue
		}
		got := strings.Split(p, "/")
		if len(got) != len(want) {
			continue
		}
		same := true
		for i := range got {
			gp, wp := strings.HasPrefix(got[i], "{"), strings.HasPrefix(want[i], "{")
			if gp != wp || (!gp && got[i] != want[i]) {
				same = false
				break
			}
		}
		if same {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// Documented reports whether the operation lists status among its
// responses.
func (o *OpenAPI) Documented(method, path string, status int) bool {
	_, ok := o.responses(method, path)[strconv.Itoa(status)]
	return ok
}

func (o *OpenAPI) responses(method, path string) map[string]any {
	item, _ := o.paths[path].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	rs, _ := op["responses"].(map[string]any)
	return rs
}

// ErrNoSchema is returned for a response the operation describes without
// a JSON body (204, 304) when a body was sent.
var ErrNoSchema = errors.New("the description has no JSON body for this response")

// Validate checks a response body against the JSON schema the operation
// (method and description path) gives for status. A status the operation
// does not list is checked against GitHub's basic-error (every GitHub
// error carries message and documentation_url). An empty body passes
// only where the description has no body.
func (o *OpenAPI) Validate(method, path string, status int, body []byte) error {
	sch, err := o.schema(method, path, status)
	if err != nil {
		return err
	}
	if sch == nil {
		if len(bytes.TrimSpace(body)) != 0 {
			return ErrNoSchema
		}
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		return brief(err)
	}
	return nil
}

// brief lists the leaf failures of a validation error, one per line.
func brief(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			lines = append(lines, "/"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(printer))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return errors.New(strings.Join(lines, "\n"))
}

// schema compiles (once) the response schema; nil means no body.
func (o *OpenAPI) schema(method, path string, status int) (*jsonschema.Schema, error) {
	key := method + " " + path + " " + strconv.Itoa(status)
	o.mu.Lock()
	defer o.mu.Unlock()
	if s, ok := o.compiled[key]; ok {
		return s, nil
	}
	rs := o.responses(method, path)
	if rs == nil {
		return nil, fmt.Errorf("no operation %s %s in the description", method, path)
	}
	var root any = map[string]any{"$ref": "#/components/schemas/basic-error"}
	if r, ok := rs[strconv.Itoa(status)]; ok {
		r = o.deref(r)
		content, _ := r.(map[string]any)["content"].(map[string]any)
		mt, _ := content["application/json"].(map[string]any)
		if mt == nil || mt["schema"] == nil {
			o.compiled[key] = nil
			return nil, nil
		}
		root = mt["schema"]
	}
	defs := map[string]any{}
	doc := o.convert(root, defs)
	m, ok := doc.(map[string]any)
	if !ok {
		m = map[string]any{"allOf": []any{doc}}
	}
	m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	m["$defs"] = defs
	c := jsonschema.NewCompiler()
	url := "mem://" + strings.NewReplacer(" ", "/", "{", "", "}", "").Replace(key) + ".json"
	if err := c.AddResource(url, m); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema of %s: %v", key, err)
	}
	o.compiled[key] = s
	return s, nil
}

// deref follows a $ref to #/components/{section}/{name}.
func (o *OpenAPI) deref(v any) any {
	for range 10 {
		m, ok := v.(map[string]any)
		ref, _ := m["$ref"].(string)
		if !ok || ref == "" {
			return v
		}
		sec, name, _ := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
		s, _ := o.comps[sec].(map[string]any)
		v = s[name]
	}
	return v
}

// convert turns an OpenAPI 3.0 schema into JSON Schema 2020-12: nullable
// becomes a union with null, $refs to component schemas point into $defs
// (filled with each reached schema, converted), and the OpenAPI-only
// keywords are dropped.
func (o *OpenAPI) convert(v any, defs map[string]any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = o.convert(x, defs)
		}
		return out
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/components/schemas/")
			if !ok {
				return o.convert(o.deref(v), defs)
			}
			if _, done := defs[name]; !done {
				defs[name] = true // placeholder against cycles
				s, _ := o.comps["schemas"].(map[string]any)
				defs[name] = o.convert(s[name], defs)
			}
			return map[string]any{"$ref": "#/$defs/" + name}
		}
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "nullable", "discriminator", "example", "examples", "externalDocs", "xml", "deprecated", "readOnly", "writeOnly":
				continue
			case "properties", "patternProperties":
				props := map[string]any{}
				for name, ps := range x.(map[string]any) {
					props[name] = o.convert(ps, defs)
				}
				out[k] = props
			default:
				if strings.HasPrefix(k, "x-") {
					continue
				}
				out[k] = o.convert(x, defs)
			}
		}
		if v["nullable"] == true {
			return nullable(out)
		}
		return out
	}
	return v
}

// nullable lets s also accept null.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(e, nil)
		}
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}
