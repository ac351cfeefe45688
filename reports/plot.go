package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// grid is a heat map's data: Z[row][col], NaN for an empty cell.
type grid struct {
	z [][]float64
}

var _ plotter.GridXYZ = grid{}

func (g grid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) Min() float64       { return 0 }
func (g grid) Max() float64       { return 1 }

// blues is a white-to-blue palette for rates in [0, 1].
type blues []color.Color

func (p blues) Colors() []color.Color { return p }

func newBlues(n int) blues {
	p := make(blues, n)
	for i := range p {
		t := float64(i) / float64(n-1)
		p[i] = color.RGBA{
			R: uint8(math.Round(247 - t*(247-8))),
			G: uint8(math.Round(251 - t*(251-69))),
			B: uint8(math.Round(255 - t*(255-148))),
			A: 255,
		}
	}
	return p
}

// heatmapSVG draws rows × cols rates as an SVG heat map with each cell's
// text written on it. Every label is escaped by vgsvg. It returns "" when
// there is nothing to draw.
func heatmapSVG(title string, rows, cols []string, z [][]float64, text [][]string) (string, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return "", nil
	}
	p, w, h, err := heatmapPlot(title, rows, cols, z, text)
	if err != nil {
		return "", err
	}
	return drawSVG(p, w, h)
}

// heatmapPlot builds the heat map and its size.
// The first row is drawn at the top.
func heatmapPlot(title string, rows, cols []string, z [][]float64, text [][]string) (*plot.Plot, vg.Length, vg.Length, error) {
	rows, z, text = slices.Clone(rows), slices.Clone(z), slices.Clone(text)
	slices.Reverse(rows)
	slices.Reverse(z)
	slices.Reverse(text)
	p := plot.New()
	p.Title.Text = title
	h := plotter.NewHeatMap(grid{z}, newBlues(32))
	h.NaN = color.RGBA{R: 220, G: 220, B: 220, A: 255}
	p.Add(h)

	var xys plotter.XYs
	var labels []string
	for r := range rows {
		for c := range cols {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(r)})
			labels = append(labels, text[r][c])
		}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("heat map labels: %w", err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = -0.5
		l.TextStyle[i].YAlign = -0.5
		l.TextStyle[i].Font.Size = vg.Points(8)
		if z[i/len(cols)][i%len(cols)] > 0.6 {
			l.TextStyle[i].Color = color.White
		}
	}
	p.Add(l)
	p.X.Tick.Marker = ticks(cols)
	p.Y.Tick.Marker = ticks(rows)
	p.X.Tick.Label.Rotation = math.Pi / 8
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Padding, p.Y.Padding = 0, 0
	w := vg.Length(1.5+1.3*float64(len(cols))) * vg.Inch
	ht := vg.Length(1.4+0.45*float64(len(rows))) * vg.Inch
	return p, w, ht, nil
}

// ticks labels integer positions 0..n-1.
func ticks(names []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		t[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return t
}

// curve is one line of a pass^k plot.
type curve struct {
	name   string
	xs, ys []float64 // ys[i] = pass^k for k = xs[i]
}

// passKSVG draws pass^k against k, one line per curve.
func passKSVG(title string, curves []curve) (string, error) {
	if len(curves) == 0 {
		return "", nil
	}
	p, err := passKPlot(title, curves)
	if err != nil {
		return "", err
	}
	return drawSVG(p, 6*vg.Inch, 3.5*vg.Inch)
}

// passKPlot builds the pass^k plot.
func passKPlot(title string, curves []curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k"
	p.Y.Label.Text = "pass^k"
	p.Y.Min, p.Y.Max = 0, 1.05
	p.Legend.Left = true // pass^k falls with k: the lower left stays clear
	for i, c := range curves {
		if len(c.ys) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(c.ys))
		for i, y := range c.ys {
			xys[i] = plotter.XY{X: c.xs[i], Y: y}
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("pass^k line: %w", err)
		}
		col := lineColour(i)
		line.Color, pts.Color = col, col
		line.Dashes = dashes(i)
		pts.Radius = vg.Points(1.5)
		p.Add(line, pts)
		p.Legend.Add(c.name, line, pts)
	}
	return p, nil
}

var palette8 = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {230, 159, 0, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

func lineColour(i int) color.Color { return palette8[i%len(palette8)] }

func dashes(i int) []vg.Length {
	if (i/len(palette8))%2 == 1 {
		return []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return nil
}

// drawSVG renders p as SVG without the XML declaration, ready to inline.
func drawSVG(p *plot.Plot, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("draw svg: %w", err)
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}
