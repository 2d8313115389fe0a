package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/deploy/grafana/dashboard"
	"github.com/fullsend-dev/fullsend/deploy/grafana/scenario"
)

// The picture of a short scenario: the dashboard's size, every panel
// with data and drawn (pixels other than the panel background inside its
// plot area), and a PNG well under the docs' 200 KB budget. Pixels are
// not compared: the pollers race, so no two runs draw the same lines.
func TestDrawDashboard(t *testing.T) {
	d, err := dashboard.Load("../fullsend.json")
	if err != nil {
		t.Fatal(err)
	}
	samples, err := scenario.Run(context.Background(), scenario.Options{Minutes: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	panels, err := Evaluate(d, samples, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	img := Draw(d, panels)
	if b := img.Bounds(); b.Dx() != 24*cellW || b.Dy() != header+40*cellH+gap {
		t.Errorf("image %v, want %dx%d (24 columns, 40 grid rows)", b, 24*cellW, header+40*cellH+gap)
	}
	var withTargets int
	for _, p := range d.Panels {
		if p.Type != "row" {
			withTargets++
		}
	}
	if len(panels) != withTargets {
		t.Errorf("%d panels evaluated, want %d", len(panels), withTargets)
	}
	for _, p := range panels {
		if !hasValue(p) {
			t.Errorf("panel %q: no value in the scenario", p.Title)
		}
		g := p.GridPos
		r := image.Rect(g.X*cellW, header+g.Y*cellH, (g.X+g.W)*cellW, header+(g.Y+g.H)*cellH)
		if n, legend := seriesInk(img, r), 40*len(p.Lines); n < legend+20 {
			t.Errorf("panel %q: %d pixels in series colors, %d of them the legend's: want lines or a tile", p.Title, n, legend)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil || buf.Len() > 200<<10 {
		t.Errorf("PNG %d bytes (%v), want under 200 KB", buf.Len(), err)
	}
}

func hasValue(p Panel) bool {
	for _, l := range p.Lines {
		for _, v := range l.Values {
			if !math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}

// seriesInk counts the pixels of r drawn in a series or threshold color
// (lines, legend marks, stat tiles).
func seriesInk(img *image.RGBA, r image.Rectangle) int {
	colors := map[color.RGBA]bool{}
	for _, c := range palette {
		colors[c] = true
	}
	for _, c := range thresholdColors {
		colors[c] = true
	}
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if colors[img.RGBAAt(x, y)] {
				n++
			}
		}
	}
	return n
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{0.25, "s", "250ms"}, {57, "s", "57s"}, {500, "s", "8.3m"}, {7300, "s", "2h"},
		{0.132, "percentunit", "13.2%"}, {0.5, "ops", "0.5/s"}, {1500, "short", "1.5k"},
		{12, "short", "12"}, {math.NaN(), "s", "-"},
	} {
		if got := format(tc.v, tc.unit); got != tc.want {
			t.Errorf("format(%v, %s) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
	for v, want := range map[float64]float64{0: 1, 0.03: 0.05, 7: 10, 18: 20, 230: 250, 4.1: 5} {
		if got := niceMax(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("niceMax(%v) = %v, want %v", v, got, want)
		}
	}
}
