package ghactions

import (
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// entityInputFindings checks the normalized_entity input of a workflow
// that takes fullsend's dispatch inputs (its workflow_dispatch or
// workflow_call inputs declare serialization_key and normalized_event):
// it must be declared, since runs of entity-source harnesses send it
// (GitHub refuses a dispatch with an undeclared input), and not required,
// since event-only runs never send it.
func entityInputFindings(w *workflow) []workflows.Finding {
	var out []workflows.Finding
	for _, trig := range []string{"workflow_dispatch", "workflow_call"} {
		_, t := workflows.MapEntry(w.on, trig)
		ik, inputs := workflows.MapEntry(t, "inputs")
		if inputs == nil {
			continue
		}
		if k, _ := workflows.MapEntry(inputs, plan.InSerializationKey); k == nil {
			continue
		}
		if k, _ := workflows.MapEntry(inputs, plan.InNormalizedEvent); k == nil {
			continue
		}
		k, v := workflows.MapEntry(inputs, plan.InNormalizedEntity)
		if k == nil {
			out = append(out, workflows.Finding{File: w.file, Line: ik.Line, Message: fmt.Sprintf(
				"on.%s.inputs lacks %s: the dispatch of a run of an entity-source harness, which sends it, is refused; "+
					"declare it (type: string, required: false, default: \"\") or regenerate the workflows", trig, plan.InNormalizedEntity)})
			continue
		}
		if _, req := workflows.MapEntry(v, "required"); req != nil && req.Value == "true" {
			out = append(out, workflows.Finding{File: w.file, Line: req.Line, Message: fmt.Sprintf(
				"on.%s.inputs.%s is required, but event-only runs never send it and would be refused: set required: false", trig, plan.InNormalizedEntity)})
		}
	}
	return out
}
