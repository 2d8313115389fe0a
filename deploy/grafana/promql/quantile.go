package promql

import (
	"fmt"
	"math"
	"sort"
)

// quantile is histogram_quantile over cumulative buckets labelled le,
// interpolating linearly inside the bucket (the lowest from 0); groups
// without observations are left out.
func quantile(q float64, vec []Point) []Point {
	type bucket struct{ le, n float64 }
	groups := map[string][]bucket{}
	labels := map[string]map[string]string{}
	var order []string
	for _, p := range vec {
		le, err := parseLe(p.Labels["le"])
		if err != nil {
			continue
		}
		k := key(p.Labels, "le")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
			l := map[string]string{}
			for n, v := range p.Labels {
				if n != "le" {
					l[n] = v
				}
			}
			labels[k] = l
		}
		groups[k] = append(groups[k], bucket{le, p.V})
	}
	var out []Point
	for _, k := range order {
		bs := groups[k]
		sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
		total := bs[len(bs)-1].n
		if total <= 0 {
			continue
		}
		rank, lo, below := q*total, 0.0, 0.0
		for _, b := range bs {
			if b.n >= rank {
				v := b.le
				if math.IsInf(b.le, 1) {
					v = lo // Prometheus answers the highest finite bound
				} else if b.n > below {
					v = lo + (b.le-lo)*(rank-below)/(b.n-below)
				}
				out = append(out, Point{Labels: labels[k], V: v})
				break
			}
			lo, below = b.le, b.n
		}
	}
	return out
}

func parseLe(s string) (float64, error) {
	if s == "+Inf" {
		return math.Inf(1), nil
	}
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	return f, err
}
