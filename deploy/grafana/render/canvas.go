package render

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The dark theme's colors.
var (
	background = color.RGBA{0x11, 0x12, 0x17, 0xff}
	panelBg    = color.RGBA{0x18, 0x1b, 0x1f, 0xff}
	gridColor  = color.RGBA{0x2c, 0x2f, 0x35, 0xff}
	textColor  = color.RGBA{0xcc, 0xcc, 0xdc, 0xff}
	dimText    = color.RGBA{0x8e, 0x8e, 0x9e, 0xff}
	palette    = []color.RGBA{
		{0x73, 0xbf, 0x69, 0xff}, {0xfa, 0xde, 0x2a, 0xff}, {0x57, 0x94, 0xf2, 0xff}, {0xff, 0x98, 0x30, 0xff},
		{0xf2, 0x49, 0x5c, 0xff}, {0xb8, 0x77, 0xd9, 0xff}, {0x8a, 0xb8, 0xff, 0xff}, {0x96, 0xd9, 0x8d, 0xff},
	}
	thresholdColors = map[string]color.RGBA{
		"green": {0x37, 0x87, 0x2d, 0xff}, "orange": {0xff, 0x78, 0x0a, 0xff}, "red": {0xc4, 0x16, 0x2a, 0xff},
		"yellow": {0xe0, 0xb4, 0x00, 0xff}, "blue": {0x1f, 0x60, 0xc4, 0xff},
	}
)

// glyph is the width of one character of the font.
const glyph = 7

var face = basicfont.Face7x13

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// text writes s (ASCII: the font has no other glyphs) with its baseline
// at y, cut to fit width pixels.
func text(img *image.RGBA, x, y int, s string, c color.Color, width int) {
	if n := width / glyph; width > 0 && len(s) > n {
		if n <= 1 {
			return
		}
		s = s[:n-1] + "~"
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// bigText writes s scale times larger, its top-left at (x, y).
func bigText(img *image.RGBA, x, y int, s string, c color.Color, scale int) {
	small := image.NewRGBA(image.Rect(0, 0, len([]rune(s))*glyph, 13))
	text(small, 0, 10, s, c, 0)
	b := small.Bounds()
	for sy := 0; sy < b.Dy(); sy++ {
		for sx := 0; sx < b.Dx(); sx++ {
			if _, _, _, a := small.At(sx, sy).RGBA(); a > 0x8000 {
				fill(img, image.Rect(x+sx*scale, y+sy*scale, x+(sx+1)*scale, y+(sy+1)*scale), c)
			}
		}
	}
}

// line draws a two-pixel line from (x0, y0) to (x1, y1).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= steps; i++ {
		x := x0 + int(math.Round(float64((x1-x0)*i)/float64(steps)))
		y := y0 + int(math.Round(float64((y1-y0)*i)/float64(steps)))
		img.SetRGBA(x, y, c)
		img.SetRGBA(x, y+1, c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// hline draws a one-pixel horizontal line.
func hline(img *image.RGBA, x0, x1, y int, c color.Color) {
	fill(img, image.Rect(x0, y, x1, y+1), c)
}
