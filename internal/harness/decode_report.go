package harness

import (
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// The values of a harness's `report:` key (docs/feedback.md).
const (
	ReportNone     = "none"     // jira, denied, unhonoured: write nothing
	ReportComment  = "comment"  // jira: a short reply comment; unhonoured: one comment on the item
	ReportReaction = "reaction" // denied: a neutral reaction (confused)
)

// Report is a harness's `report:` key: what people see on the
// item about the runs the harness starts (package feedback writes it).
type Report struct {
	// Acknowledge: a run started by a command (a comment or note, a
	// review, a label added) is acknowledged on that element (default true).
	Acknowledge bool `yaml:"acknowledge"`
	// Jira is how a Jira command is acknowledged, where comments have no
	// reactions: none (default) or comment.
	Jira string `yaml:"jira"`
	// Denied is what a command from an actor below the required role
	// gets: none (default) or reaction (confused).
	Denied string `yaml:"denied"`
	// Unhonoured is what a change given up on (quarantined) gets:
	// comment (default: one comment with the reason) or none.
	Unhonoured string `yaml:"unhonoured"`
}

// DefaultReport is the `report:` of a harness that sets none.
func DefaultReport() Report {
	return Report{Acknowledge: true, Jira: ReportNone, Denied: ReportNone, Unhonoured: ReportComment}
}

// harnessReport decodes the `report:` key into r (defaults kept for
// keys not set).
func harnessReport(d *strictyaml.Decoder, n *yaml.Node, r *Report) {
	d.Fields(n, "report", map[string]func(*yaml.Node){
		"acknowledge": func(v *yaml.Node) { d.Boolean(v, "report.acknowledge", &r.Acknowledge) },
		"jira":        func(v *yaml.Node) { d.Enum(v, "report.jira", &r.Jira, ReportNone, ReportComment) },
		"denied":      func(v *yaml.Node) { d.Enum(v, "report.denied", &r.Denied, ReportNone, ReportReaction) },
		"unhonoured":  func(v *yaml.Node) { d.Enum(v, "report.unhonoured", &r.Unhonoured, ReportComment, ReportNone) },
	})
}
