// Package dashboard reads the Grafana dashboard JSON
// (deploy/grafana/fullsend.json): the panels, their queries parsed by
// Prometheus' own PromQL parser (package promql), and the checks every
// panel must pass (a data source, a unique id, queries that parse).
package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/fullsend-dev/fullsend/deploy/grafana/promql"
)

// Ref is a data source reference.
type Ref struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Target is one query of a panel.
type Target struct {
	RefID        string `json:"refId"`
	Datasource   *Ref   `json:"datasource"`
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
}

// Panel is a panel or a row.
type Panel struct {
	ID         int      `json:"id"`
	Type       string   `json:"type"`
	Title      string   `json:"title"`
	Datasource *Ref     `json:"datasource"`
	Targets    []Target `json:"targets"`
	GridPos    struct {
		H, W, X, Y int
	} `json:"gridPos"`
	FieldConfig struct {
		Defaults struct {
			Unit       string `json:"unit"`
			Thresholds struct {
				Steps []Step `json:"steps"`
			} `json:"thresholds"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

// Step is a threshold: from Value (nil: the base) on, Color.
type Step struct {
	Color string   `json:"color"`
	Value *float64 `json:"value"`
}

// Variable is a template variable.
type Variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Datasource *Ref            `json:"datasource"`
}

// Dashboard is the part of the dashboard model fullsend checks and renders.
type Dashboard struct {
	Title         string  `json:"title"`
	UID           string  `json:"uid"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []Panel `json:"panels"`
	Templating    struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Load reads a dashboard file.
func Load(path string) (*Dashboard, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// Query is a panel target with its parsed expression.
type Query struct {
	Panel  *Panel
	Target Target
	Node   promql.Expr
}

// Queries returns the parsed queries of every panel, in panel order, and
// the problems of the panels: no data source, a duplicate id, a target
// without a query or with one that is not PromQL.
func (d *Dashboard) Queries() ([]Query, error) {
	var qs []Query
	var errs []error
	ids := map[int]string{}
	for i := range d.Panels {
		p := &d.Panels[i]
		if prev, dup := ids[p.ID]; dup {
			errs = append(errs, fmt.Errorf("panel %q: id %d is also %q's", p.Title, p.ID, prev))
		}
		ids[p.ID] = p.Title
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID == "" || len(p.Targets) == 0 {
			errs = append(errs, fmt.Errorf("panel %q: needs a datasource and at least one target", p.Title))
		}
		for _, t := range p.Targets {
			if t.Datasource == nil || p.Datasource == nil || t.Datasource.UID != p.Datasource.UID {
				errs = append(errs, fmt.Errorf("panel %q target %s: datasource differs from the panel's", p.Title, t.RefID))
			}
			n, err := promql.Parse(t.Expr)
			if err != nil {
				errs = append(errs, fmt.Errorf("panel %q target %s: %w", p.Title, t.RefID, err))
				continue
			}
			qs = append(qs, Query{Panel: p, Target: t, Node: n})
		}
	}
	return qs, errors.Join(errs...)
}
