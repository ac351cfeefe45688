package reports

import (
	"math"
	"strings"
)

// The report is built once as a [document] and rendered twice, to
// Markdown (report.md) and to HTML (report.html): a section, caption or
// table added to the document appears in both, so the HTML has everything
// the Markdown has by construction. Figures, the drill-down and the trace
// viewer are the HTML's own (marked HTMLOnly, or of a kind Markdown does
// not draw); the Markdown is the text of the same report.

// document is a report: a title, what comes before the first section,
// and the sections.
type document struct {
	Title    string
	Intro    []block
	Sections []*section
}

// section is a titled part of the report with an id (the HTML anchor and
// table-of-contents entry), its blocks and its subsections.
type section struct {
	ID       string
	Title    string
	Blocks   []block
	Sections []*section
	// HTMLOnly sections (the drill-down, the traces) are left out of
	// report.md.
	HTMLOnly bool
	// NoTOC leaves the section out of the HTML's table of contents (the
	// drill-down's many cells).
	NoTOC bool
}

// sub appends a subsection and returns it.
func (s *section) sub(id, title string) *section {
	c := &section{ID: id, Title: title}
	s.Sections = append(s.Sections, c)
	return c
}

// add appends blocks.
func (s *section) add(b ...block) { s.Blocks = append(s.Blocks, b...) }

// block is one piece of a section: a *para, *list, *box, *table, *figure
// or *viewers.
type block interface{ isBlock() }

// para is a paragraph; Class styles it in HTML (valid, discarded, note).
type para struct {
	Spans []span
	Class string
}

// list is a bulleted list, one item of spans each.
type list struct{ Items [][]span }

// box groups blocks under one HTML class (the deviation notice).
type box struct {
	Class  string
	Blocks []block
}

// figure is an inline SVG chart with its legend, HTML only: Draw builds
// it (plot.go, every label escaped) when the HTML is written, so report.md
// never draws one.
type figure struct {
	ID      string
	Title   string
	Draw    func() string
	Caption string
}

// viewers holds the trace viewers, HTML only.
type viewers struct{ Items []*TraceView }

func (*para) isBlock()    {}
func (*list) isBlock()    {}
func (*box) isBlock()     {}
func (*table) isBlock()   {}
func (*figure) isBlock()  {}
func (*viewers) isBlock() {}

// spanKind says how a span of text is set.
type spanKind int

const (
	spanText   spanKind = iota
	spanStrong          // bold
	spanCode            // monospace
	spanRef             // a reference to a section: emphasis in Markdown, a link in HTML
	spanLink            // a link to an anchor of the HTML (text alone in Markdown)
	spanBreak           // a hard line break
)

func (k spanKind) String() string {
	return [...]string{"text", "strong", "code", "ref", "link", "break"}[k]
}

// allSpanKinds lists every span kind.
var allSpanKinds = []spanKind{spanText, spanStrong, spanCode, spanRef, spanLink, spanBreak}

// span is a run of inline text. Href is a fragment id (without "#") for
// refs and links; Class styles it in HTML (a verdict's colour).
type span struct {
	Kind  spanKind
	Text  string
	Href  string
	Class string
}

func text(s string) span                { return span{Kind: spanText, Text: s} }
func strong(s string) span              { return span{Kind: spanStrong, Text: s} }
func code(s string) span                { return span{Kind: spanCode, Text: s} }
func ref(s, id string) span             { return span{Kind: spanRef, Text: s, Href: id} }
func link(s, id string) span            { return span{Kind: spanLink, Text: s, Href: id} }
func lineBreak() span                   { return span{Kind: spanBreak} }
func styled(sp span, class string) span { sp.Class = class; return sp }

// p is a paragraph of plain text.
func p(s string) *para { return &para{Spans: []span{text(s)}} }

// plain is the spans' text without markup.
func plain(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.Kind == spanBreak {
			b.WriteString(" ")
			continue
		}
		b.WriteString(s.Text)
	}
	return b.String()
}

// table is a table with a header row. Its first column names the row
// (a row header) when RowHeads is set. Heat colours its valued cells by
// their value on the report's colour scale; HTMLOnly tables (long lists)
// are left out of report.md; Collapsed (HTML) folds the table under a
// summary line.
type table struct {
	ID        string
	Header    []string
	Rows      [][]tcell
	RowHeads  bool
	Heat      bool
	HTMLOnly  bool
	Collapsed string
}

// cellKind is what a table cell holds, which sets how it sorts and
// colours.
type cellKind int

const (
	cellText   cellKind = iota
	cellCode            // a command or an id, monospace
	cellNumber          // a count or a measured number
	cellRate            // a rate with its interval and what it counts
)

func (k cellKind) String() string { return [...]string{"text", "code", "number", "rate"}[k] }

// allCellKinds lists every cell kind.
var allCellKinds = []cellKind{cellText, cellCode, cellNumber, cellRate}

// cell is one table cell: its spans (what both renderers show), its kind
// and, for numbers and rates, the value it sorts and colours by (NaN
// when it has none, as an empty rate). A rate also keeps what it counts:
// K of N (trial level) or a clustered rate over M mutants with its
// interval.
type tcell struct {
	Kind   cellKind
	Spans  []span
	Value  float64
	K, N   int
	M      int
	Lo, Hi float64
}

// textCell is a cell of text.
func textCell(s string) tcell {
	return tcell{Kind: cellText, Spans: []span{text(s)}, Value: math.NaN()}
}

// intCell is a count.
func intCell(i int) tcell {
	return tcell{Kind: cellNumber, Spans: []span{text(itoa(i))}, Value: float64(i)}
}

// numCell is a number shown as s.
func numCell(s string, v float64) tcell {
	return tcell{Kind: cellNumber, Spans: []span{text(s)}, Value: v}
}

// trialRateCell is k of n with its Wilson interval ([rateCell]).
func trialRateCell(k, n int) tcell {
	lo, hi := Wilson(k, n)
	v := math.NaN()
	if n > 0 {
		v = ratio(k, n)
	}
	return tcell{Kind: cellRate, Spans: []span{text(rateCell(k, n))}, Value: v, K: k, N: n, Lo: lo, Hi: hi}
}

// clusteredCell is a rate over m mutants with its clustered interval
// ([mutantCell]).
func clusteredCell(rate F4, c CI, m int) tcell {
	v := math.NaN()
	if m > 0 {
		v = float64(rate)
	}
	return tcell{Kind: cellRate, Spans: []span{text(mutantCell(rate, c, m))}, Value: v, M: m, Lo: float64(c[0]), Hi: float64(c[1])}
}

// then appends text to a cell.
func (c tcell) then(s string) tcell {
	c.Spans = append(append([]span(nil), c.Spans...), text(s))
	return c
}

// linked makes the whole cell's text a link to anchor id.
func (c tcell) linked(id string) tcell {
	if id == "" {
		return c
	}
	c.Spans = []span{link(plain(c.Spans), id)}
	return c
}
