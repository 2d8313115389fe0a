package harness

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// Defaults and bounds of a harness's `steer:` key (docs/steering.md).
const (
	DefaultSteerMax         = 2
	MaxSteerMax             = 20
	DefaultSteerMinTimeLeft = 5 * time.Minute
)

// Steer is a harness's `steer:` key: whether follow-ups on the
// subject are delivered into its run in progress (package steer), and
// how many and until when. Off by default.
type Steer struct {
	Enabled bool `yaml:"enabled"`
	// Max is the most follow-ups one run takes (1..MaxSteerMax).
	Max int `yaml:"max"`
	// MinTimeLeft: no follow-up is taken once less than this is left
	// before run.timeout.
	MinTimeLeft time.Duration `yaml:"min_time_left"`
	// Stdin: the agent also reads each follow-up on its standard input.
	Stdin bool `yaml:"stdin"`
}

// DefaultSteer is the `steer:` of a harness that sets none.
func DefaultSteer() Steer {
	return Steer{Max: DefaultSteerMax, MinTimeLeft: DefaultSteerMinTimeLeft}
}

// harnessSteer decodes the `steer:` key into s (defaults kept for keys
// not set).
func harnessSteer(d *strictyaml.Decoder, n *yaml.Node, s *Steer) {
	d.Fields(n, "steer", map[string]func(*yaml.Node){
		"enabled": func(v *yaml.Node) { d.Boolean(v, "steer.enabled", &s.Enabled) },
		"max": func(v *yaml.Node) {
			m := s.Max
			d.IntMin(v, "steer.max", 1, &m)
			if m > MaxSteerMax {
				d.ErrAt(v, "steer.max: must be at most %d, got %d", MaxSteerMax, m)
				return
			}
			s.Max = m
		},
		"min_time_left": func(v *yaml.Node) { d.DurationMin0(v, "steer.min_time_left", &s.MinTimeLeft) },
		"stdin":         func(v *yaml.Node) { d.Boolean(v, "steer.stdin", &s.Stdin) },
	})
}
