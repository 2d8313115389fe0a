package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// ReadHarnessFile reads and decodes one harness file with the same
// strictness as config.yaml: unknown keys, wrong types and bad values are
// problems at file:line:col, all returned together. It returns the
// best-effort HarnessFile (bad values left at their defaults, the trigger
// text kept whenever it is a string) with the problems; the HarnessFile is
// nil only when the file could not be read or parsed as YAML.
//
// agentName is the name of the agents entry that registers the file: the
// harness name defaults to it and, when the file sets one, must equal it.
// Defaults: run.timeout 30m. The trigger is returned as text with its
// position (TriggerLine/TriggerCol, TriggerPos); compiling it is the
// caller's job.
//
// path must already have passed ResolveSource: package harness is the one
// loader of harnesses (containment check, decoding, trigger compilation)
// and the only caller.
func ReadHarnessFile(path, agentName string) (*HarnessFile, Errors) {
	src, err := readLimited(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: err.Error()}}
	}
	return ParseHarness(path, agentName, src)
}

// ParseHarness is ReadHarnessFile on bytes already read; path is used
// in problem positions only.
func ParseHarness(path, agentName string, src []byte) (*HarnessFile, Errors) {
	d := &decoder{file: path}
	h := &HarnessFile{File: path, Name: agentName, Revision: Revision(src), Run: HarnessRun{Timeout: DefaultHarnessTimeout, Env: []string{}},
		Report: DefaultHarnessReport(), Steer: DefaultHarnessSteer()}
	root := d.parseDocument(src)
	if root == nil {
		return nil, d.probs
	}
	{
		var nameNode, roleNode, trigNode *yaml.Node
		d.fields(root, "harness", map[string]func(*yaml.Node){
			"name": func(v *yaml.Node) { nameNode = v; d.str(v, "name", &h.Name) },
			"role": func(v *yaml.Node) { roleNode = v; d.str(v, "role", &h.Role) },
			"trigger": func(v *yaml.Node) {
				if d.scalar(v, "trigger", "a string holding a CEL expression", "!!str") {
					trigNode = v
					h.Trigger = v.Value
				}
			},
			"dispatch": func(v *yaml.Node) {
				d.fields(v, "dispatch", map[string]func(*yaml.Node){
					"workflow": func(v *yaml.Node) {
						var s string
						d.str(v, "dispatch.workflow", &s)
						if s == "" {
							return
						}
						if err := checkWorkflow(s); err != nil {
							d.errAt(v, "dispatch.workflow: %v", err)
							return
						}
						h.Dispatch.Workflow = s
					},
				})
			},
			"run":      func(v *yaml.Node) { d.harnessRun(v, &h.Run) },
			"entity":   func(v *yaml.Node) { h.Entity = d.harnessEntity(v) },
			"report":   func(v *yaml.Node) { d.harnessReport(v, &h.Report) },
			"steer":    func(v *yaml.Node) { d.harnessSteer(v, &h.Steer) },
			"overlays": func(v *yaml.Node) { h.Overlays = d.harnessOverlays(src, v) },
		})
		if root.Kind == yaml.MappingNode {
			switch {
			case nameNode != nil && h.Name != agentName:
				d.errAt(nameNode, "name: %q does not match the agents entry name %q in config.yaml", h.Name, agentName)
			case nameNode != nil:
				if err := CheckAgentName(h.Name); err != nil {
					d.errAt(nameNode, "%v", err)
				}
			}
			switch {
			case roleNode == nil:
				d.errAt(root, "role: required")
			case roleNode.Kind == yaml.ScalarNode && strings.TrimSpace(h.Role) == "":
				d.errAt(roleNode, "role: must not be empty")
			}
			if trigNode != nil {
				h.setTrigger(src, trigNode)
			}
		}
	}
	d.probs.Sort()
	return h, d.probs
}

func (d *decoder) harnessRun(n *yaml.Node, r *HarnessRun) {
	d.fields(n, "run", map[string]func(*yaml.Node){
		"command": func(v *yaml.Node) {
			d.strList(v, "run.command", &r.Command, nil)
			r.CommandLine, r.CommandCol = v.Line, v.Column
			if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
				r.CommandLine, r.CommandCol = v.Content[0].Line, v.Content[0].Column
			}
			if v.Kind == yaml.SequenceNode && (len(v.Content) == 0 || len(r.Command) > 0 && r.Command[0] == "") {
				d.errAt(v, "run.command: want a non-empty list whose first element is the program")
			}
		},
		"timeout": func(v *yaml.Node) { d.duration(v, "run.timeout", &r.Timeout) },
		"env":     func(v *yaml.Node) { d.strList(v, "run.env", &r.Env, CheckEnvName) },
		"user": func(v *yaml.Node) {
			d.str(v, "run.user", &r.User)
			if err := sandbox.CheckUser(r.User); err != nil {
				d.errAt(v, "run.user: %v", err)
			}
		},
		"isolation": func(v *yaml.Node) {
			d.str(v, "run.isolation", &r.Isolation)
			if err := sandbox.CheckIsolation(r.Isolation); err != nil {
				d.errAt(v, "run.isolation: %v", err)
			}
		},
	})
}

// harnessEntity decodes the `entity:` key: sources (required, a non-empty
// list of known systems without repeats), min_role (a role), every (a
// duration of at least MinEvery) and retry (max 0..MaxRetryMax, backoff at
// least MinRetryBackoff).
func (d *decoder) harnessEntity(n *yaml.Node) *HarnessEntity {
	e := &HarnessEntity{Line: n.Line, Col: n.Column, Retry: HarnessRetry{Max: DefaultRetryMax, Backoff: DefaultRetryBackoff}}
	var sources *yaml.Node
	d.fields(n, "entity", map[string]func(*yaml.Node){
		"sources": func(v *yaml.Node) {
			sources = v
			d.strList(v, "entity.sources", &e.Sources, checkSource)
			if v.Kind != yaml.SequenceNode {
				return
			}
			if len(v.Content) == 0 {
				d.errAt(v, "entity.sources: want at least one of %s", strings.Join(entity.Systems(), ", "))
			}
			seen := map[string]bool{}
			for i, at := range v.Content {
				if at.Kind == yaml.ScalarNode && seen[at.Value] {
					d.errAt(at, "entity.sources[%d]: %q is listed twice", i, at.Value)
				}
				seen[at.Value] = true
			}
		},
		"min_role": func(v *yaml.Node) { d.role(v, "entity.min_role", &e.MinRole) },
		"every":    func(v *yaml.Node) { d.durationAtLeast(v, "entity.every", MinEvery, &e.Every) },
		"retry": func(v *yaml.Node) {
			d.fields(v, "entity.retry", map[string]func(*yaml.Node){
				"max": func(v *yaml.Node) {
					d.intMin(v, "entity.retry.max", 0, &e.Retry.Max)
					if e.Retry.Max > MaxRetryMax {
						d.errAt(v, "entity.retry.max: at most %d, got %d", MaxRetryMax, e.Retry.Max)
						e.Retry.Max = DefaultRetryMax
					}
				},
				"backoff": func(v *yaml.Node) { d.durationAtLeast(v, "entity.retry.backoff", MinRetryBackoff, &e.Retry.Backoff) },
			})
		},
	})
	if n.Kind == yaml.MappingNode && sources == nil {
		d.errAt(n, "entity.sources: required (a list of %s)", strings.Join(entity.Systems(), ", "))
	}
	return e
}

// Revision is the revision of a harness file's content: "sha256:" and the
// hex SHA-256 of its bytes.
func Revision(src []byte) string {
	sum := sha256.Sum256(src)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkSource accepts the name of a system entities come from.
func checkSource(s string) error {
	if !slices.Contains(entity.Systems(), s) {
		return fmt.Errorf("%q is not one of %s", s, strings.Join(entity.Systems(), ", "))
	}
	return nil
}

// setTrigger records where the trigger expression starts in the file: the
// scalar itself for plain and quoted styles (after the quote), the first
// content line for block scalars (| and >).
func (h *HarnessFile) setTrigger(src []byte, n *yaml.Node) {
	h.trig, h.TriggerLine, h.TriggerCol = exprSource(src, n)
}

// exprSource describes the CEL expression held by scalar n of src, and
// where its text starts in the file.
func exprSource(src []byte, n *yaml.Node) (t triggerSource, line, col int) {
	lines := strings.Split(string(src), "\n")
	t = triggerSource{lines: lines, style: n.Style, line: n.Line, col: n.Column, value: n.Value}
	line, col = n.Line, n.Column
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		col++
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		line, col = t.pos(1, 1, line, col)
	}
	return t, line, col
}

// String describes the harness for logs.
func (h *HarnessFile) String() string {
	return fmt.Sprintf("harness %q (%s)", h.Name, h.File)
}
