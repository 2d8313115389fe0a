// Package gitlabci generates and checks the GitLab CI configuration
// (.gitlab-ci.yml) that runs fullsend while keeping the scheduling rule of
// docs/scheduling.md: the agent job sits in resource group
// `fullsend-$FULLSEND_RESOURCE_KEY`, is not interruptible, new commits do
// not auto-cancel pipelines, and pipelines are named
// `fullsend:$FULLSEND_RESOURCE_KEY` so the gitlab-pipeline output can find
// and coalesce the waiting pipelines of one scope. Besides the agent job
// it writes the scheduled poll job and the dispatch job that turns a
// project webhook, delivered through a pipeline trigger, into agent runs.
package gitlabci

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"text/template"

	"github.com/fullsend-dev/fullsend/internal/workflows"
	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// FileName is the file Generate writes.
const FileName = ".gitlab-ci.yml"

// Names the generated configuration and the checker agree on.
const (
	PipelineName  = "fullsend:$FULLSEND_RESOURCE_KEY"
	ResourceGroup = "fullsend-$FULLSEND_RESOURCE_KEY"
)

// Defaults for Options.
const (
	// DefaultImage runs the release install (sh, wget, sha256sum, tar):
	// alpine 3.22 by digest, so that a re-pushed tag cannot change it.
	DefaultImage = "alpine:3.22@sha256:14358309a308569c32bdc37e2e0e9694be33a9d99e68afb0f5ff33cc1f695dce"
	// DefaultSourceImage has a Go toolchain for --install source; it is a
	// tag, so it needs AllowUnpinnedImage (or an Image by digest).
	DefaultSourceImage = "golang:1.26"
	DefaultRef         = "main"
	DefaultTimeout     = 60
	DefaultPollTimeout = 15
	// PollEnvironment scopes the poll job's GITLAB_TOKEN (api scope);
	// AgentEnvironment the agent job's read_api token when AgentToken is set.
	PollEnvironment  = "fullsend-poll"
	AgentEnvironment = "fullsend-agent"
	// DispatchEnvironment scopes the dispatch job's GITLAB_TOKEN (api):
	// it re-reads webhook bodies and starts agent pipelines.
	DispatchEnvironment = "fullsend-dispatch"
	// TriggerRule is the rules:if of the dispatch job: a trigger pipeline
	// that carries a webhook body.
	TriggerRule = `$CI_PIPELINE_SOURCE == "trigger" && $TRIGGER_PAYLOAD`
)

// Options shape the generated configuration. Zero values take the
// defaults, except Install, which names what to install (release.Resolve).
type Options struct {
	// Install is the fullsend the jobs install.
	Install release.Pin
	// Image is the job image: by digest (name@sha256:...) unless
	// AllowUnpinnedImage; default DefaultImage, or DefaultSourceImage for
	// a source install.
	Image              string
	AllowUnpinnedImage bool
	// AgentToken puts the agent job in environment AgentEnvironment so
	// that it receives a GITLAB_TOKEN scoped to it, for the runner's early
	// exit of superseded runs. Default: the agent job gets no GITLAB_TOKEN.
	AgentToken bool
	Ref        string // branch the schedule and API pipelines run on (comment only); default main
	// TimeoutMinutes bounds one agent run; PollTimeoutMinutes one poll.
	TimeoutMinutes     int
	PollTimeoutMinutes int
}

//go:embed templates/gitlab-ci.yml.tmpl
var tmplText string

var tmpl = template.Must(template.New(FileName).Delims("[[", "]]").
	Funcs(template.FuncMap{"indent": workflows.Indent}).Parse(tmplText))

// safeValue restricts option values that land in YAML and shell text.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/@:-]*$`)

// digestPinned matches an image reference by digest.
var digestPinned = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

func (o *Options) normalize() error {
	if err := o.Install.Validate(); err != nil {
		return fmt.Errorf("gitlab workflows: %w", err)
	}
	if o.Image == "" {
		o.Image = DefaultImage
		if o.Install.Mode == release.Source {
			o.Image = DefaultSourceImage
		}
	}
	if o.Ref == "" {
		o.Ref = DefaultRef
	}
	if o.TimeoutMinutes <= 0 {
		o.TimeoutMinutes = DefaultTimeout
	}
	if o.PollTimeoutMinutes <= 0 {
		o.PollTimeoutMinutes = DefaultPollTimeout
	}
	if err := workflows.CheckValues(safeValue, "letters, digits and . _ + / @ : -",
		workflows.Value{Name: "image", Val: o.Image}, workflows.Value{Name: "ref", Val: o.Ref}); err != nil {
		return fmt.Errorf("gitlab workflows: %w", err)
	}
	if !digestPinned.MatchString(o.Image) && !o.AllowUnpinnedImage {
		return fmt.Errorf("gitlab workflows: image %q is not pinned by digest: pass --image NAME@sha256:<64 hex> "+
			"or accept a mutable tag with --allow-unpinned-image", o.Image)
	}
	return nil
}

// Generate renders the configuration: file name -> content. The output is
// deterministic for equal options and passes Check.
func Generate(opts Options) (map[string][]byte, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	data := struct {
		Options
		Source                                                 bool
		Script, TriggerRule                                    string
		PollEnvironment, AgentEnvironment, DispatchEnvironment string
		AgentScript                                            string
	}{opts, opts.Install.Mode == release.Source, release.Script, TriggerRule, PollEnvironment, AgentEnvironment, DispatchEnvironment,
		workflows.AgentScript(`--harness "$FULLSEND_AGENT"`)}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("gitlab workflows: render %s: %w", FileName, err)
	}
	return map[string][]byte{FileName: b.Bytes()}, nil
}
