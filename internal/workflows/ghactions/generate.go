// Package ghactions generates and checks the GitHub Actions workflows that
// run fullsend while keeping the scheduling rule of DESIGN.md section 2:
// every job that runs `fullsend run` sits in a concurrency group holding
// the scope key, with cancel-in-progress false, and a reusable workflow's
// group prefix differs from its caller's.
package ghactions

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// File names written by Generate.
const (
	PollFile     = "fullsend-poll.yml"
	RunFile      = "fullsend-run.yml"
	ReusableFile = "fullsend-run-reusable.yml"
)

// Group prefixes of the generated workflows. The caller and the callee of
// the reusable variant use different prefixes so that the called job never
// waits on the group its own caller holds.
const (
	CallerPrefix = "fullsend-run-"
	CalleePrefix = "fullsend-agent-"
	PollGroup    = "fullsend-poll"
)

// Defaults for Options.
const (
	DefaultCron      = "*/5 * * * *"
	DefaultGoVersion = "1.26"
	DefaultRunsOn    = "ubuntu-latest"
	DefaultTimeout   = 60
)

// Options shape the generated workflows. Zero values take the defaults,
// except Version, which must name the fullsend version to install.
type Options struct {
	// Version is the module version installed with
	// `go install github.com/fullsend-dev/fullsend/cmd/fullsend@VERSION`
	// (a tag such as v1.2.3, a commit, or a Go module query).
	Version   string
	GoVersion string // actions/setup-go version; default 1.26
	Cron      string // poll schedule; default every 5 minutes
	RunsOn    string // runner label; default ubuntu-latest
	// TimeoutMinutes bounds one agent run job; default 60.
	TimeoutMinutes int
	// Reusable writes fullsend-run.yml as a caller of
	// fullsend-run-reusable.yml instead of a self-contained workflow.
	Reusable bool
}

//go:embed templates/*.tmpl
var templateFS embed.FS

var tmpl = template.Must(template.New("").Delims("[[", "]]").ParseFS(templateFS, "templates/*.tmpl"))

// input describes one of the nine dispatch inputs in a workflow.
type input struct {
	Name, Env, Description string
	Required               bool
}

var descriptions = map[string]string{
	plan.InAgent:            "harness name",
	plan.InRole:             "harness role",
	plan.InSourceRepo:       "target repository of the event",
	plan.InEventType:        "transition kind of the event",
	plan.InEventPayload:     "GitHub-shaped JSON projection of the event",
	plan.InNormalizedEvent:  "the NormalizedEvent, compact JSON",
	plan.InSerializationKey: "scope key: harness:repo:system:kind:id",
	plan.InWorkItem:         "work item reference, JSON",
	plan.InPollLock:         "poll lock reference, JSON, empty outside polling",
}

var required = map[string]bool{plan.InAgent: true, plan.InNormalizedEvent: true, plan.InSerializationKey: true}

// safeValue restricts option values that land in YAML and shell text.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/@-]*$`)

// cronField is one field of a five-field cron expression.
var cronField = regexp.MustCompile(`^[0-9*/,-]+$`)

func (o *Options) normalize() error {
	if o.GoVersion == "" {
		o.GoVersion = DefaultGoVersion
	}
	if o.Cron == "" {
		o.Cron = DefaultCron
	}
	if o.RunsOn == "" {
		o.RunsOn = DefaultRunsOn
	}
	if o.TimeoutMinutes <= 0 {
		o.TimeoutMinutes = DefaultTimeout
	}
	for _, v := range []struct{ name, val string }{
		{"fullsend version", o.Version}, {"Go version", o.GoVersion}, {"runs-on", o.RunsOn},
	} {
		if !safeValue.MatchString(v.val) {
			return fmt.Errorf("workflows: %s %q: want letters, digits and . _ + / @ -", v.name, v.val)
		}
	}
	f := strings.Fields(o.Cron)
	if len(f) != 5 {
		return fmt.Errorf("workflows: cron %q: want five fields", o.Cron)
	}
	for _, x := range f {
		if !cronField.MatchString(x) {
			return fmt.Errorf("workflows: cron %q: field %q has characters outside 0-9 * / , -", o.Cron, x)
		}
	}
	return nil
}

// Generate renders the workflows for opts: file name -> content.
// The output is deterministic for equal options.
func Generate(opts Options) (map[string][]byte, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	data := struct {
		Options
		Inputs                     []input
		CallerPrefix, CalleePrefix string
	}{Options: opts, CallerPrefix: CallerPrefix, CalleePrefix: CalleePrefix}
	for _, n := range plan.Names {
		data.Inputs = append(data.Inputs, input{Name: n, Env: plan.EnvVar(n),
			Description: descriptions[n], Required: required[n]})
	}
	files := map[string]string{PollFile: "fullsend-poll.yml.tmpl", RunFile: "fullsend-run.yml.tmpl"}
	if opts.Reusable {
		files[RunFile] = "fullsend-run-caller.yml.tmpl"
		files[ReusableFile] = "fullsend-run-reusable.yml.tmpl"
	}
	out := make(map[string][]byte, len(files))
	for name, t := range files {
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, t, data); err != nil {
			return nil, fmt.Errorf("workflows: render %s: %w", name, err)
		}
		out[name] = buf.Bytes()
	}
	return out, nil
}
