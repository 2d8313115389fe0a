// Package ghactions generates and checks the GitHub Actions workflows that
// run fullsend. They keep the scheduling rule (docs/scheduling.md): every
// job that runs `fullsend run` sits in a concurrency group holding the
// scope key, with cancel-in-progress false, and a reusable workflow's group
// prefix differs from its caller's. They also keep the security rules of
// docs/security.md: secrets only in the steps that run fullsend, no
// persisted checkout credentials, actions pinned by commit, least
// permissions per job, and a verified fullsend install.
package ghactions

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"text/template"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/workflows"
	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// File names written by Generate (and EventsFile).
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
	// ConfigDir is the configuration directory the poll job checks out
	// (sparse) and fullsend reads by default.
	ConfigDir = ".fullsend"
)

// Options shape the generated workflows. Zero values take the defaults,
// except Install, which must name what to install (release.Resolve).
type Options struct {
	// Install is the fullsend the jobs install: a release archive verified
	// against the release's checksums.txt, or a build from source.
	Install   release.Pin
	GoVersion string // --install source: actions/setup-go version; default 1.26
	Cron      string // poll schedule; default every 5 minutes
	RunsOn    string // runner label; default ubuntu-latest
	// TimeoutMinutes bounds one agent run job; default 60.
	TimeoutMinutes int
	// Reusable writes fullsend-run.yml as a caller of
	// fullsend-run-reusable.yml instead of a self-contained workflow.
	Reusable bool
	// GitHubPoll gives the poll job the read permissions of the
	// github-poll backstop (issues, pull requests), for repositories where
	// it polls GitHub itself.
	GitHubPoll bool
	// Feedback gives the jobs that dispatch from GitHub events (the
	// events job, and the poll job with GitHubPoll) issues: write and
	// pull-requests: write, for the reactions of docs/feedback.md;
	// without it they keep read access.
	Feedback bool
	// Steer gives the run job (and, with Reusable, its caller's grant)
	// actions: read, issues: write and pull-requests: write, for a
	// harness that steers a running agent (docs/steering.md): the runs
	// of its scope, the item's comments and the reply that records a
	// follow-up.
	Steer bool
	// Secrets are the repository secrets the steps that run fullsend get,
	// each as the environment variable of the same name, and that the
	// reusable workflow takes (SecretsFor derives them from the
	// configuration); none when empty. GITHUB_TOKEN, the workflow's own
	// token, is always set on those steps and never passed on to a called
	// workflow (it has its own).
	Secrets []string
}

//go:embed templates/*.tmpl
var templateFS embed.FS

var tmpl = template.Must(template.New("").Delims("[[", "]]").Funcs(template.FuncMap{"indent": workflows.Indent, "pinned": uses}).
	ParseFS(templateFS, "templates/*.tmpl"))

// input describes one of the ten dispatch inputs in a workflow.
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
	plan.InNormalizedEntity: "the NormalizedEntity of an entity-source harness's run, compact JSON, empty for event-only runs",
}

var required = map[string]bool{plan.InAgent: true, plan.InNormalizedEvent: true, plan.InSerializationKey: true}

// safeValue restricts option values that land in YAML and shell text.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/@-]*$`)

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
	if err := workflows.CheckValues(safeValue, "letters, digits and . _ + / @ -",
		workflows.Value{Name: "Go version", Val: o.GoVersion}, workflows.Value{Name: "runs-on", Val: o.RunsOn}); err != nil {
		return fmt.Errorf("workflows: %w", err)
	}
	if err := o.Install.Validate(); err != nil {
		return fmt.Errorf("workflows: %w", err)
	}
	if err := checkSecrets(o.Secrets); err != nil {
		return fmt.Errorf("workflows: %w", err)
	}
	if err := ValidateCron(o.Cron); err != nil {
		return fmt.Errorf("workflows: %w", err)
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
		ConfigDir, PollGroup       string
		JiraSecrets                []string
		Source                     bool
		Checkout, SetupGo          string
		Script, AgentScript        string
		Triggers                   []trigger
	}{Triggers: eventTriggers, Options: opts, CallerPrefix: CallerPrefix, CalleePrefix: CalleePrefix, ConfigDir: ConfigDir, PollGroup: PollGroup,
		JiraSecrets: opts.Secrets, Source: opts.Install.Mode == release.Source, Script: release.Script,
		AgentScript: workflows.AgentScript("")}
	var err error
	if data.Checkout, err = uses("actions/checkout"); err != nil {
		return nil, err
	}
	if data.SetupGo, err = uses("actions/setup-go"); err != nil {
		return nil, err
	}
	for _, n := range plan.Names {
		data.Inputs = append(data.Inputs, input{Name: n, Env: plan.EnvVar(n),
			Description: descriptions[n], Required: required[n]})
	}
	files := map[string]string{PollFile: "fullsend-poll.yml.tmpl", RunFile: "fullsend-run.yml.tmpl",
		EventsFile: "fullsend-events.yml.tmpl"}
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
