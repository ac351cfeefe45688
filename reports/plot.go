package reports

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The charts of report.html are inline SVG written here, with presentation
// attributes only (no style attribute, which a strict Content-Security-
// Policy would block) and every label escaped. They follow the data, not
// the number of builds: a heat map has a cell per design and class and a
// colour scale beside it; pass^k curves of more than a few series are
// small multiples, one panel each, never overlapping lines under a legend.

// heatSteps is how many colours the heat scale has: 0, 0.1, ..., 1.
const heatSteps = 11

// heatColour returns the colour of step i of the white-to-blue scale.
func heatColour(i int) string {
	t := float64(i) / float64(heatSteps-1)
	c := func(from, to float64) int { return int(math.Round(from - t*(from-to))) }
	return fmt.Sprintf("#%02x%02x%02x", c(247, 8), c(251, 69), c(255, 148))
}

// heatStep is the scale step of a rate in [0, 1], -1 when there is none.
func heatStep(v float64) int {
	if math.IsNaN(v) {
		return -1
	}
	return int(math.Round(min(max(v, 0), 1) * (heatSteps - 1)))
}

// heatClass is the CSS class that colours a table cell of value v.
func heatClass(v float64) string {
	if s := heatStep(v); s >= 0 {
		return fmt.Sprintf("q%d", s)
	}
	return "qn"
}

// heatCSS is the style of the heat classes q0..q10 (and qn, no data).
func heatCSS() string {
	var b strings.Builder
	for i := range heatSteps {
		fg := "#000"
		if i > 6 {
			fg = "#fff"
		}
		fmt.Fprintf(&b, ".q%d{background:%s;color:%s}", i, heatColour(i), fg)
	}
	b.WriteString(".qn{background:#dcdcdc;color:#000}")
	return b.String()
}

// svgWriter builds an SVG document.
type svgWriter struct{ b strings.Builder }

func (s *svgWriter) f(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a label at x, y; anchor is start, middle or end.
func (s *svgWriter) text(x, y float64, anchor, class, label string) {
	s.f(`<text x="%.1f" y="%.1f" text-anchor="%s"`, x, y, anchor)
	if class != "" {
		s.f(` class="%s"`, class)
	}
	s.f(`>%s</text>`, html.EscapeString(label))
}

func (s *svgWriter) open(w, h float64, label string) {
	s.f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s" font-family="sans-serif" font-size="11">`,
		w, h, w, h, html.EscapeString(label))
	s.f(`<title>%s</title>`, html.EscapeString(label))
}

func (s *svgWriter) close() string { s.b.WriteString("</svg>"); return s.b.String() }

// heatFigure draws rows × cols cells as a heat map with its colour scale.
func heatFigure(id, title string, rows, cols []string, get func(row, col string) tcell) *figure {
	cells := make([][]tcell, len(rows))
	for i, r := range rows {
		for _, c := range cols {
			cells[i] = append(cells[i], get(r, c))
		}
	}
	return &figure{ID: id, Title: title, Draw: func() string { return heatmapSVG(title, rows, cols, cells) },
		Caption: "Each cell: rate [95% interval] (mutants); colour by rate on the scale at the right, grey where no mutant counts."}
}

// heatmapSVG draws the heat map: a labelled grid, each cell's figure on
// it, and a colour scale from 0 to 1.
func heatmapSVG(title string, rows, cols []string, cells [][]tcell) string {
	if len(rows) == 0 || len(cols) == 0 {
		return ""
	}
	const cw, ch, left, top = 132.0, 34.0, 40.0, 52.0
	w := left + cw*float64(len(cols)) + 90
	h := top + ch*float64(len(rows)) + 16
	var s svgWriter
	s.open(w, h, title)
	s.text(left, 16, "start", "t", title)
	for j, c := range cols {
		s.text(left+cw*(float64(j)+0.5), top-8, "middle", "", c)
	}
	for i, r := range rows {
		y := top + ch*float64(i)
		s.text(left-6, y+ch/2+4, "end", "", r)
		for j := range cols {
			x := left + cw*float64(j)
			c := cells[i][j]
			fill, fg := "#dcdcdc", "#000"
			if st := heatStep(c.Value); st >= 0 {
				fill = heatColour(st)
				if st > 6 {
					fg = "#fff"
				}
			}
			s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#fff"/>`, x, y, cw, ch, fill)
			s.f(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s" font-size="10.5">%s</text>`, x+cw/2, y+ch/2+3, fg, html.EscapeString(shortRate(c)))
		}
	}
	scaleLegend(&s, left+cw*float64(len(cols))+24, top, ch*float64(len(rows)))
	return s.close()
}

// shortRate is a cell's figure short enough for a heat-map cell.
func shortRate(c tcell) string {
	if math.IsNaN(c.Value) {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f] (%d)", c.Value, c.Lo, c.Hi, c.M)
}

// scaleLegend draws the colour scale, 1 at the top, as a column of the
// scale's steps at x, y, height h.
func scaleLegend(s *svgWriter, x, y, h float64) {
	h = max(h, 66)
	step := h / heatSteps
	for i := range heatSteps {
		s.f(`<rect x="%.1f" y="%.1f" width="14" height="%.1f" fill="%s"/>`, x, y+step*float64(heatSteps-1-i), step+0.5, heatColour(i))
	}
	s.f(`<rect x="%.1f" y="%.1f" width="14" height="%.1f" fill="none" stroke="#888"/>`, x, y, step*heatSteps)
	s.text(x+18, y+8, "start", "", "1")
	s.text(x+18, y+step*heatSteps/2+4, "start", "", "0.5")
	s.text(x+18, y+step*heatSteps, "start", "", "0")
	s.f(`<rect x="%.1f" y="%.1f" width="14" height="10" fill="#dcdcdc"/>`, x, y+step*heatSteps+6)
	s.text(x+18, y+step*heatSteps+15, "start", "", "none")
}

// curve is one line of a pass^k plot.
type curve struct {
	name   string
	xs, ys []float64 // ys[i] = pass^k for k = xs[i]
}

var palette8 = []string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#56b4e9", "#e69f00", "#000000", "#f0e442"}

// maxLines is the most series one chart draws; more go to small
// multiples.
const maxLines = 8

// axes is the plotting area of a panel: x from 1 to kMax, y from 0 to 1.
type axes struct{ x, y, w, h, kMax float64 }

func (a axes) px(k float64) float64 {
	if a.kMax <= 1 {
		return a.x
	}
	return a.x + (k-1)/(a.kMax-1)*a.w
}
func (a axes) py(v float64) float64 { return a.y + (1-v)*a.h }

// frame draws the axes with ticks at 0, 0.5, 1 and at k = 1 and kMax.
func (a axes) frame(s *svgWriter, ticks bool) {
	s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fafafa" stroke="#bbb"/>`, a.x, a.y, a.w, a.h)
	s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, a.x, a.py(0.5), a.x+a.w, a.py(0.5))
	if !ticks {
		return
	}
	for _, v := range []float64{0, 0.5, 1} {
		s.text(a.x-4, a.py(v)+4, "end", "", fmt.Sprintf("%g", v))
	}
	s.text(a.px(1), a.y+a.h+13, "middle", "", "1")
	if a.kMax > 1 {
		s.text(a.px(a.kMax), a.y+a.h+13, "middle", "", fmt.Sprintf("%g", a.kMax))
	}
}

// line draws a curve.
func (a axes) line(s *svgWriter, c curve, colour string, width float64) {
	if len(c.ys) == 0 {
		return
	}
	pts := make([]string, len(c.ys))
	for i, y := range c.ys {
		pts[i] = fmt.Sprintf("%.1f,%.1f", a.px(c.xs[i]), a.py(y))
	}
	s.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"/>`, strings.Join(pts, " "), colour, width)
}

func kMax(curves []curve) float64 {
	m := 1.0
	for _, c := range curves {
		for _, x := range c.xs {
			m = max(m, x)
		}
	}
	return m
}

// lineChartSVG draws up to maxLines curves on one chart, the legend
// beside the plot, never over it; more curves make small multiples.
func lineChartSVG(title string, curves []curve) string {
	if len(curves) == 0 {
		return ""
	}
	if len(curves) > maxLines {
		return smallMultiplesSVG(title, curves, nil)
	}
	const w, h = 620.0, 260.0
	a := axes{x: 44, y: 30, w: 380, h: 190, kMax: kMax(curves)}
	var s svgWriter
	s.open(w, h, title)
	s.text(a.x, 16, "start", "t", title)
	a.frame(&s, true)
	s.text(a.x+a.w/2, a.y+a.h+28, "middle", "", "k")
	for i, c := range curves {
		a.line(&s, c, palette8[i], 1.8)
		y := a.y + 10 + 16*float64(i)
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"/>`, a.x+a.w+16, y-4, a.x+a.w+34, y-4, palette8[i])
		s.text(a.x+a.w+40, y, "start", "", c.name)
	}
	return s.close()
}

// smallMultiplesSVG draws one small panel per curve, in the order given,
// each with ref (when not nil) as a grey line to compare with.
func smallMultiplesSVG(title string, curves []curve, ref *curve) string {
	if len(curves) == 0 {
		return ""
	}
	const cols, pw, ph = 6, 150.0, 112.0
	rows := (len(curves) + cols - 1) / cols
	var s svgWriter
	s.open(cols*pw+10, 24+ph*float64(rows), title)
	s.text(8, 16, "start", "t", title)
	km := kMax(curves)
	for i, c := range curves {
		x0, y0 := 10+pw*float64(i%cols), 24+ph*float64(i/cols)
		a := axes{x: x0 + 26, y: y0 + 18, w: pw - 40, h: ph - 48, kMax: km}
		s.f(`<g><title>%s</title>`, html.EscapeString(c.name))
		s.text(x0+pw/2, y0+12, "middle", "p", clip(c.name, 26))
		a.frame(&s, true)
		if ref != nil {
			a.line(&s, *ref, "#aaa", 1.2)
		}
		a.line(&s, c, palette8[0], 1.8)
		if n := len(c.ys); n > 0 {
			y := a.y + a.h - 4 // below a high curve, above a low one
			if c.ys[n-1] < 0.5 {
				y = a.py(0.62)
			}
			s.text(a.x+a.w-3, y, "end", "p", fmt.Sprintf("k=%g: %.2f", c.xs[n-1], c.ys[n-1]))
		}
		s.b.WriteString("</g>")
	}
	return s.close()
}

// clip shortens s to n characters with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
