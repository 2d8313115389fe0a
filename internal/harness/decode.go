package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// ReadFile reads and decodes one harness file with the same
// strictness as config.yaml: unknown keys, wrong types and bad values are
// problems at file:line:col, all returned together. It returns the
// best-effort File (bad values left at their defaults, the trigger
// text kept whenever it is a string) with the problems; the File is
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
func ReadFile(path, agentName string) (*File, strictyaml.Errors) {
	src, err := strictyaml.ReadFile(path)
	if err != nil {
		return nil, strictyaml.Errors{{File: path, Msg: err.Error()}}
	}
	return ParseFile(path, agentName, src)
}

// ParseFile is ReadFile on bytes already read; path is used
// in problem positions only.
func ParseFile(path, agentName string, src []byte) (*File, strictyaml.Errors) {
	d := &strictyaml.Decoder{File: path}
	h := &File{File: path, Name: agentName, Revision: Revision(src), Run: FileRun{Timeout: DefaultTimeout, Env: []string{}},
		Report: DefaultReport(), Steer: DefaultSteer()}
	root := d.ParseDocument(src)
	if root == nil {
		return nil, d.Problems
	}
	{
		var nameNode, roleNode, trigNode *yaml.Node
		d.Fields(root, "harness", map[string]func(*yaml.Node){
			"name": func(v *yaml.Node) { nameNode = v; d.Str(v, "name", &h.Name) },
			"role": func(v *yaml.Node) { roleNode = v; d.Str(v, "role", &h.Role) },
			"trigger": func(v *yaml.Node) {
				if d.Scalar(v, "trigger", "a string holding a CEL expression", "!!str") {
					trigNode = v
					h.Trigger = v.Value
				}
			},
			"dispatch": func(v *yaml.Node) {
				d.Fields(v, "dispatch", map[string]func(*yaml.Node){
					"workflow": func(v *yaml.Node) {
						var s string
						d.Str(v, "dispatch.workflow", &s)
						if s == "" {
							return
						}
						if err := config.CheckWorkflow(s); err != nil {
							d.ErrAt(v, "dispatch.workflow: %v", err)
							return
						}
						h.Dispatch.Workflow = s
					},
				})
			},
			"run":      func(v *yaml.Node) { harnessRun(d, v, &h.Run) },
			"entity":   func(v *yaml.Node) { h.Entity = harnessEntity(d, v) },
			"report":   func(v *yaml.Node) { harnessReport(d, v, &h.Report) },
			"steer":    func(v *yaml.Node) { harnessSteer(d, v, &h.Steer) },
			"overlays": func(v *yaml.Node) { h.Overlays = harnessOverlays(d, src, v) },
		})
		if root.Kind == yaml.MappingNode {
			switch {
			case nameNode != nil && h.Name != agentName:
				d.ErrAt(nameNode, "name: %q does not match the agents entry name %q in config.yaml", h.Name, agentName)
			case nameNode != nil:
				if err := config.CheckAgentName(h.Name); err != nil {
					d.ErrAt(nameNode, "%v", err)
				}
			}
			switch {
			case roleNode == nil:
				d.ErrAt(root, "role: required")
			case roleNode.Kind == yaml.ScalarNode && strings.TrimSpace(h.Role) == "":
				d.ErrAt(roleNode, "role: must not be empty")
			}
			if trigNode != nil {
				h.setTrigger(src, trigNode)
			}
		}
	}
	d.Problems.Sort()
	return h, d.Problems
}

func harnessRun(d *strictyaml.Decoder, n *yaml.Node, r *FileRun) {
	d.Fields(n, "run", map[string]func(*yaml.Node){
		"command": func(v *yaml.Node) {
			d.StrList(v, "run.command", &r.Command, nil)
			r.CommandLine, r.CommandCol = v.Line, v.Column
			if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
				r.CommandLine, r.CommandCol = v.Content[0].Line, v.Content[0].Column
			}
			if v.Kind == yaml.SequenceNode && (len(v.Content) == 0 || len(r.Command) > 0 && r.Command[0] == "") {
				d.ErrAt(v, "run.command: want a non-empty list whose first element is the program")
			}
		},
		"timeout": func(v *yaml.Node) { d.Duration(v, "run.timeout", &r.Timeout) },
		"env":     func(v *yaml.Node) { d.StrList(v, "run.env", &r.Env, config.CheckEnvName) },
		"user": func(v *yaml.Node) {
			d.Str(v, "run.user", &r.User)
			if err := sandbox.CheckUser(r.User); err != nil {
				d.ErrAt(v, "run.user: %v", err)
			}
		},
		"isolation": func(v *yaml.Node) {
			d.Str(v, "run.isolation", &r.Isolation)
			if err := sandbox.CheckIsolation(r.Isolation); err != nil {
				d.ErrAt(v, "run.isolation: %v", err)
			}
		},
	})
}

// harnessEntity decodes the `entity:` key: sources (required, a non-empty
// list of known systems without repeats), min_role (a role), every (a
// duration of at least MinEvery) and retry (max 0..MaxRetryMax, backoff at
// least MinRetryBackoff).
func harnessEntity(d *strictyaml.Decoder, n *yaml.Node) *FileEntity {
	e := &FileEntity{Line: n.Line, Col: n.Column, Retry: FileRetry{Max: DefaultRetryMax, Backoff: DefaultRetryBackoff}}
	var sources *yaml.Node
	d.Fields(n, "entity", map[string]func(*yaml.Node){
		"sources": func(v *yaml.Node) {
			sources = v
			d.StrList(v, "entity.sources", &e.Sources, checkSource)
			if v.Kind != yaml.SequenceNode {
				return
			}
			if len(v.Content) == 0 {
				d.ErrAt(v, "entity.sources: want at least one of %s", strings.Join(entity.Systems(), ", "))
			}
			seen := map[string]bool{}
			for i, at := range v.Content {
				if at.Kind == yaml.ScalarNode && seen[at.Value] {
					d.ErrAt(at, "entity.sources[%d]: %q is listed twice", i, at.Value)
				}
				seen[at.Value] = true
			}
		},
		"min_role": func(v *yaml.Node) { d.Role(v, "entity.min_role", &e.MinRole) },
		"every":    func(v *yaml.Node) { d.DurationAtLeast(v, "entity.every", MinEvery, &e.Every) },
		"retry": func(v *yaml.Node) {
			d.Fields(v, "entity.retry", map[string]func(*yaml.Node){
				"max": func(v *yaml.Node) {
					d.IntMin(v, "entity.retry.max", 0, &e.Retry.Max)
					if e.Retry.Max > MaxRetryMax {
						d.ErrAt(v, "entity.retry.max: at most %d, got %d", MaxRetryMax, e.Retry.Max)
						e.Retry.Max = DefaultRetryMax
					}
				},
				"backoff": func(v *yaml.Node) { d.DurationAtLeast(v, "entity.retry.backoff", MinRetryBackoff, &e.Retry.Backoff) },
			})
		},
	})
	if n.Kind == yaml.MappingNode && sources == nil {
		d.ErrAt(n, "entity.sources: required (a list of %s)", strings.Join(entity.Systems(), ", "))
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
func (h *File) setTrigger(src []byte, n *yaml.Node) {
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
func (h *File) String() string {
	return fmt.Sprintf("harness %q (%s)", h.Name, h.File)
}
