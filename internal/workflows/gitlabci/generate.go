// Package gitlabci generates and checks the GitLab CI configuration
// (.gitlab-ci.yml) that runs fullsend while keeping the scheduling rule of
// DESIGN.md section 2: the agent job sits in resource group
// `fullsend-$FULLSEND_RESOURCE_KEY`, is not interruptible, new commits do
// not auto-cancel pipelines, and pipelines are named
// `fullsend:$FULLSEND_RESOURCE_KEY` so the gitlab-pipeline output can find
// and coalesce the waiting pipelines of one scope.
package gitlabci

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"text/template"
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
	DefaultImage       = "golang:1.26"
	DefaultRef         = "main"
	DefaultTimeout     = 60
	DefaultPollTimeout = 15
)

// Options shape the generated configuration. Zero values take the
// defaults, except Version, which names the fullsend version to install.
type Options struct {
	// Version is installed with `go install
	// github.com/fullsend-dev/fullsend/cmd/fullsend@VERSION`.
	Version string
	Image   string // job image with a Go toolchain; default golang:1.26
	Ref     string // branch the schedule and API pipelines run on (comment only); default main
	// TimeoutMinutes bounds one agent run; PollTimeoutMinutes one poll.
	TimeoutMinutes     int
	PollTimeoutMinutes int
}

//go:embed templates/gitlab-ci.yml.tmpl
var tmplText string

var tmpl = template.Must(template.New(FileName).Delims("[[", "]]").Parse(tmplText))

// safeValue restricts option values that land in YAML and shell text.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/@:-]*$`)

func (o *Options) normalize() error {
	if o.Image == "" {
		o.Image = DefaultImage
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
	for _, v := range []struct{ name, val string }{
		{"fullsend version", o.Version}, {"image", o.Image}, {"ref", o.Ref},
	} {
		if !safeValue.MatchString(v.val) {
			return fmt.Errorf("gitlab workflows: %s %q: want letters, digits and . _ + / @ : -", v.name, v.val)
		}
	}
	return nil
}

// Generate renders the configuration: file name -> content. The output is
// deterministic for equal options and passes Check.
func Generate(opts Options) (map[string][]byte, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, opts); err != nil {
		return nil, fmt.Errorf("gitlab workflows: render %s: %w", FileName, err)
	}
	return map[string][]byte{FileName: b.Bytes()}, nil
}
