package render

import (
	"image"
	"image/color"
	"math"

	"github.com/fullsend-dev/fullsend/deploy/grafana/dashboard"
)

// Grid cell size: Grafana's 24 columns, and the height of one grid row.
const (
	cellW = 56
	cellH = 30
	gap   = 4
)

// header is the height of the dashboard's title line.
const header = 28

// Draw lays out the rows of d and the evaluated panels by their grid
// positions and draws them; the title line names the dashboard and the
// time range of the data.
func Draw(d *dashboard.Dashboard, panels []Panel) *image.RGBA {
	bottom := 0
	for _, p := range d.Panels {
		bottom = max(bottom, p.GridPos.Y+p.GridPos.H)
	}
	img := image.NewRGBA(image.Rect(0, 0, 24*cellW, header+bottom*cellH+gap))
	fill(img, img.Bounds(), background)
	text(img, gap+4, 19, d.Title+rangeOf(panels), textColor, 0)
	for _, p := range d.Panels {
		if p.Type == "row" {
			text(img, gap+4, header+p.GridPos.Y*cellH+cellH-8, p.Title, textColor, 0)
		}
	}
	for _, p := range panels {
		g := p.GridPos
		r := image.Rect(g.X*cellW+gap, header+g.Y*cellH+gap, (g.X+g.W)*cellW, header+(g.Y+g.H)*cellH)
		fill(img, r, panelBg)
		text(img, r.Min.X+8, r.Min.Y+16, p.Title, textColor, r.Dx()-16)
		inner := image.Rect(r.Min.X+8, r.Min.Y+24, r.Max.X-8, r.Max.Y-6)
		if p.Type == "stat" {
			drawStat(img, inner, p)
		} else {
			drawSeries(img, inner, p)
		}
	}
	return img
}

func rangeOf(panels []Panel) string {
	for _, p := range panels {
		if n := len(p.Times); n > 0 {
			return "   " + p.Times[0].Format("2006-01-02 15:04") + " - " + p.Times[n-1].Format("15:04") + " UTC"
		}
	}
	return ""
}

// drawSeries draws a line chart with a y axis, time labels and a legend.
func drawSeries(img *image.RGBA, r image.Rectangle, p Panel) {
	legendH := drawLegend(img, r, p.Lines)
	plot := image.Rect(r.Min.X+44, r.Min.Y+4, r.Max.X-4, r.Max.Y-legendH-16)
	top := niceMax(maxOf(p.Lines))
	for k := 0; k <= 2; k++ {
		y := plot.Max.Y - k*plot.Dy()/2
		hline(img, plot.Min.X, plot.Max.X, y, gridColor)
		label := format(top*float64(k)/2, p.FieldConfig.Defaults.Unit)
		text(img, plot.Min.X-4-len(label)*glyph, y+4, label, dimText, 0)
	}
	n := len(p.Times)
	xOf := func(i int) int { return plot.Min.X + i*plot.Dx()/max(n-1, 1) }
	for _, i := range []int{0, n / 2, n - 1} {
		if i >= 0 && i < n {
			label := p.Times[i].Format("15:04")
			x := min(max(xOf(i)-len(label)*glyph/2, plot.Min.X), plot.Max.X-len(label)*glyph)
			text(img, x, plot.Max.Y+13, label, dimText, 0)
		}
	}
	for k, l := range p.Lines {
		c := palette[k%len(palette)]
		yOf := func(v float64) int { return plot.Max.Y - int(math.Round(v/top*float64(plot.Dy()))) }
		for i := 1; i < len(l.Values); i++ {
			a, b := l.Values[i-1], l.Values[i]
			if !math.IsNaN(a) && !math.IsNaN(b) {
				line(img, xOf(i-1), yOf(a), xOf(i), yOf(b), c)
			}
		}
	}
}

// drawLegend writes the legend at the bottom of r and returns its height.
func drawLegend(img *image.RGBA, r image.Rectangle, lines []Line) int {
	type entry struct {
		x, row int
	}
	var pos []entry
	x, row := 0, 0
	for _, l := range lines {
		w := 14 + len(l.Name)*glyph + 12
		if x > 0 && x+w > r.Dx() {
			x, row = 0, row+1
		}
		pos = append(pos, entry{x, row})
		x += w
	}
	h := (row + 1) * 14
	if len(lines) == 0 {
		text(img, r.Min.X, r.Max.Y-2, "no data", dimText, 0)
		return 14
	}
	for k, l := range lines {
		bx, by := r.Min.X+pos[k].x, r.Max.Y-h+pos[k].row*14
		fill(img, image.Rect(bx, by+5, bx+10, by+9), palette[k%len(palette)])
		text(img, bx+14, by+11, l.Name, textColor, r.Max.X-bx-14)
	}
	return h
}

func maxOf(lines []Line) float64 {
	m := 0.0
	for _, l := range lines {
		for _, v := range l.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = max(m, v)
			}
		}
	}
	return m
}

// drawStat draws a tile per line: its last value, big, on the color of
// the threshold it reached, over a sparkline.
func drawStat(img *image.RGBA, r image.Rectangle, p Panel) {
	if len(p.Lines) == 0 {
		text(img, r.Min.X, r.Min.Y+14, "no data", dimText, 0)
		return
	}
	w := r.Dx() / len(p.Lines)
	for k, l := range p.Lines {
		tile := image.Rect(r.Min.X+k*w, r.Min.Y, r.Min.X+(k+1)*w-gap, r.Max.Y)
		v := last(l.Values)
		bg := stepColor(p, v)
		fill(img, tile, bg)
		spark(img, tile, l.Values, lighten(bg))
		s := format(v, p.FieldConfig.Defaults.Unit)
		scale := max(min(4, (tile.Dx()-16)/max(len([]rune(s))*glyph, 1)), 1)
		bigText(img, tile.Min.X+(tile.Dx()-len([]rune(s))*glyph*scale)/2, tile.Min.Y+tile.Dy()/2-7*scale, s, color.White, scale)
		text(img, tile.Min.X+6, tile.Min.Y+14, l.Name, color.White, tile.Dx()-12)
	}
}

func last(vs []float64) float64 {
	for i := len(vs) - 1; i >= 0; i-- {
		if !math.IsNaN(vs[i]) {
			return vs[i]
		}
	}
	return math.NaN()
}

// stepColor is the color of the highest threshold v reached.
func stepColor(p Panel, v float64) color.RGBA {
	c := thresholdColors["blue"]
	for _, s := range p.FieldConfig.Defaults.Thresholds.Steps {
		if s.Value == nil || v >= *s.Value {
			if tc, ok := thresholdColors[s.Color]; ok {
				c = tc
			}
		}
	}
	return c
}

func lighten(c color.RGBA) color.RGBA {
	up := func(v uint8) uint8 { return uint8(min(int(v)+60, 255)) }
	return color.RGBA{up(c.R), up(c.G), up(c.B), 0xff}
}

// spark draws vs along the lower third of r.
func spark(img *image.RGBA, r image.Rectangle, vs []float64, c color.RGBA) {
	top := niceMax(maxOf([]Line{{Values: vs}}))
	h := r.Dy() / 3
	n := len(vs)
	for i := 1; i < n; i++ {
		if math.IsNaN(vs[i-1]) || math.IsNaN(vs[i]) {
			continue
		}
		x0, x1 := r.Min.X+(i-1)*r.Dx()/n, r.Min.X+i*r.Dx()/n
		line(img, x0, r.Max.Y-3-int(vs[i-1]/top*float64(h)), x1, r.Max.Y-3-int(vs[i]/top*float64(h)), c)
	}
}
