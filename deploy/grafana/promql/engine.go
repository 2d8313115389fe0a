package promql

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/tsdb"
)

// Sample is one scrape at time T.
type Sample struct {
	T      time.Time
	Series []Series
}

// Point is one element of a result: its labels and value.
type Point struct {
	Labels map[string]string
	V      float64
}

// Store holds scrapes in a TSDB of the Prometheus project, in a temporary
// directory, and evaluates queries over them with its engine.
type Store struct {
	dir    string
	db     *tsdb.DB
	engine *promql.Engine
	times  []time.Time
}

// NewStore stores samples (scrapes in time order). Close removes it.
func NewStore(samples []Sample) (*Store, error) {
	dir, err := os.MkdirTemp("", "fullsend-promql-")
	if err != nil {
		return nil, err
	}
	db, err := tsdb.Open(dir, nil, nil, tsdb.DefaultOptions(), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("open TSDB: %w", err)
	}
	s := &Store{dir: dir, db: db, engine: promql.NewEngine(promql.EngineOpts{
		MaxSamples: 10_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute, Parser: pql})}
	if err := s.append(samples); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// append writes every series of every sample at its scrape time.
func (s *Store) append(samples []Sample) error {
	ctx := context.Background()
	for _, sm := range samples {
		app := s.db.Appender(ctx)
		for _, se := range sm.Series {
			b := labels.NewBuilder(labels.FromMap(se.Labels))
			b.Set(labels.MetricName, se.Name)
			if _, err := app.Append(0, b.Labels(), sm.T.UnixMilli(), se.Value); err != nil {
				_ = app.Rollback()
				return fmt.Errorf("store %s at %s: %w", se.Name, sm.T.Format(time.RFC3339), err)
			}
		}
		if err := app.Commit(); err != nil {
			return err
		}
		s.times = append(s.times, sm.T)
	}
	return nil
}

// Close closes the TSDB and removes its directory.
func (s *Store) Close() error {
	return errors.Join(s.db.Close(), os.RemoveAll(s.dir))
}

// Instant evaluates expr (a parsed query, Grafana variables already
// expanded: Expand) at t: one point per result series; a scalar result is
// one point without labels.
func (s *Store) Instant(ctx context.Context, expr string, t time.Time) ([]Point, error) {
	q, err := s.engine.NewInstantQuery(ctx, s.db, nil, expr, t)
	if err != nil {
		return nil, fmt.Errorf("PromQL: %w", err)
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		return nil, fmt.Errorf("PromQL: %w", res.Err)
	}
	switch v := res.Value.(type) {
	case promql.Vector:
		out := make([]Point, 0, len(v))
		for _, p := range v {
			if p.H != nil {
				continue // native histograms: fullsend exports classic ones
			}
			out = append(out, Point{Labels: p.Metric.Map(), V: p.F})
		}
		return out, nil
	case promql.Scalar:
		return []Point{{Labels: map[string]string{}, V: v.V}}, nil
	}
	return nil, fmt.Errorf("PromQL: %s is a %s, want an instant vector or a scalar", expr, res.Value.Type())
}

// Over evaluates expr at every stored scrape time after the first (the
// first only serves as the base of rates): for each time, its points.
func (s *Store) Over(ctx context.Context, expr string) ([][]Point, error) {
	var out [][]Point
	for _, t := range s.times[min(1, len(s.times)):] {
		ps, err := s.Instant(ctx, expr, t)
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// Finite drops the points whose value is NaN or infinite (a quantile of
// an empty histogram, a division by zero): a chart has no value there.
func Finite(ps []Point) []Point {
	out := ps[:0:0]
	for _, p := range ps {
		if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
			out = append(out, p)
		}
	}
	return out
}
