package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// HTML renders report.html into memory; see [WriteHTML].
func HTML(r *Results) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteHTML writes report.html to out without a run folder to read kept
// traces from: every item the report points to shows the command that
// regenerates it. [WriteAll] embeds the run folder's kept traces.
func WriteHTML(out io.Writer, r *Results) error { return WriteHTMLIn(out, r, "") }

// WriteHTMLIn writes report.html for the run folder dir ("" for none):
// one self-contained file (no external URL, a strict
// Content-Security-Policy whose hashes admit its one style sheet and one
// script) with a table of contents that stays in view, the report's
// document, heat maps with their colour scale, tables that sort (the
// script; they read as they are without it), a drill-down from every
// detection and localisation cell to example suite runs and items, and a
// trace viewer for every item whose trace the run folder keeps. Every
// string from a scenario, trace, model or user is escaped.
func WriteHTMLIn(out io.Writer, r *Results, dir string) error {
	r = r.normalised()
	ts, err := loadTraceSet(dir, r)
	if err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	h := &htmlWriter{w: bw}
	h.page(buildReport(r, ts))
	if h.err == nil {
		h.err = bw.Flush()
	}
	if h.err != nil {
		return fmt.Errorf("render html: %w", h.err)
	}
	return nil
}

// htmlWriter writes HTML to w, keeping the first error. raw writes markup
// as it is; esc escapes text (and attribute values) for HTML.
type htmlWriter struct {
	w   io.Writer
	err error
}

func (h *htmlWriter) raw(s string) {
	if h.err == nil {
		_, h.err = io.WriteString(h.w, s)
	}
}

func (h *htmlWriter) esc(s string) { h.raw(html.EscapeString(s)) }

// f writes formatted markup: its arguments must be markup already (ids,
// numbers, escaped text).
func (h *htmlWriter) f(format string, args ...any) {
	if h.err == nil {
		_, h.err = fmt.Fprintf(h.w, format, args...)
	}
}

// head writes the document head: the policy, the title and the style.
func (h *htmlWriter) head(title string) {
	h.raw(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="`)
	h.esc(contentPolicy())
	h.raw(`">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>`)
	h.esc(title)
	h.raw("</title>\n<style>" + pageCSS + "</style>\n</head>\n")
}

// page writes the whole report.
func (h *htmlWriter) page(d *document) {
	h.head(d.Title)
	h.raw(`<body>
<a class="skip" href="#main">skip to the report</a>
<div class="layout">
`)
	h.toc(d)
	h.raw(`<main id="main">
<h1>`)
	h.esc(d.Title)
	h.raw("</h1>\n")
	h.blocks(d.Intro)
	for _, s := range d.Sections {
		h.section(s, 2)
	}
	h.raw("</main>\n</div>\n<script>" + pageJS + "</script>\n</body>\n</html>\n")
}

// toc writes the table of contents: every section and subsection but
// those marked NoTOC.
func (h *htmlWriter) toc(d *document) {
	h.raw(`<nav class="toc" aria-label="Contents"><p class="toc-h">Contents</p>` + "\n")
	h.tocList(d.Sections)
	h.raw("</nav>\n")
}

func (h *htmlWriter) tocList(ss []*section) {
	h.raw("<ol>")
	for _, s := range ss {
		if s.NoTOC {
			continue
		}
		h.f(`<li><a href="#%s">`, html.EscapeString(s.ID))
		h.esc(s.Title)
		h.raw("</a>")
		if hasTOC(s.Sections) {
			h.tocList(s.Sections)
		}
		h.raw("</li>")
	}
	h.raw("</ol>\n")
}

func hasTOC(ss []*section) bool {
	for _, s := range ss {
		if !s.NoTOC {
			return true
		}
	}
	return false
}

func (h *htmlWriter) section(s *section, level int) {
	level = min(level, 6)
	h.f(`<section id="%s">`+"\n"+`<h%d>`, html.EscapeString(s.ID), level)
	h.esc(s.Title)
	h.f("</h%d>\n", level)
	h.blocks(s.Blocks)
	for _, c := range s.Sections {
		h.section(c, level+1)
	}
	h.raw("</section>\n")
}

func (h *htmlWriter) blocks(bs []block) {
	for _, b := range bs {
		switch b := b.(type) {
		case *para:
			h.open("p", b.Class)
			h.spans(b.Spans)
			h.raw("</p>\n")
		case *list:
			h.raw("<ul>")
			for _, it := range b.Items {
				h.raw("<li>")
				h.spans(it)
				h.raw("</li>\n")
			}
			h.raw("</ul>\n")
		case *box:
			h.open("div", b.Class)
			h.blocks(b.Blocks)
			h.raw("</div>\n")
		case *table:
			h.table(b)
		case *figure:
			h.figure(b)
		case *viewers:
			for _, v := range b.Items {
				h.viewer(v, false)
			}
		}
	}
}

// open writes a start tag with its class, when set.
func (h *htmlWriter) open(tag, class string) {
	h.raw("<" + tag)
	h.class(class)
	h.raw(">")
}

// class writes a class attribute when c is set.
func (h *htmlWriter) class(c string) {
	if c != "" {
		h.raw(` class="`)
		h.esc(c)
		h.raw(`"`)
	}
}

func (h *htmlWriter) spans(spans []span) {
	for _, s := range spans {
		switch s.Kind {
		case spanStrong:
			h.open("b", s.Class)
			h.esc(s.Text)
			h.raw("</b>")
		case spanCode:
			h.raw("<code>")
			h.esc(s.Text)
			h.raw("</code>")
		case spanRef, spanLink:
			h.raw(`<a href="#`)
			h.esc(s.Href)
			h.raw(`"`)
			h.class(s.Class)
			h.raw(">")
			h.esc(s.Text)
			h.raw("</a>")
		case spanBreak:
			h.raw("<br>")
		default:
			h.esc(s.Text)
		}
	}
}

func (h *htmlWriter) figure(f *figure) {
	svg := f.Draw()
	if svg == "" {
		return
	}
	h.f(`<figure id="%s" class="chart">`, html.EscapeString(f.ID))
	h.raw(svg) // plot.go escapes every label
	if f.Caption != "" {
		h.raw("<figcaption>")
		h.esc(f.Caption)
		h.raw("</figcaption>")
	}
	h.raw("</figure>\n")
}

// scale writes the colour scale of the heat tables.
func (h *htmlWriter) scale() {
	h.raw(`<p class="scale" aria-hidden="true">colour scale: `)
	for i := range heatSteps {
		h.f(`<span class="q%d">%s</span>`, i, strconv.FormatFloat(float64(i)/(heatSteps-1), 'f', 1, 64))
	}
	h.raw(` <span class="qn">no data</span></p>` + "\n")
}

func (h *htmlWriter) table(t *table) {
	if t.Collapsed != "" {
		h.raw("<details><summary>")
		h.esc(t.Collapsed)
		h.f(" (%d rows)</summary>\n", len(t.Rows))
	}
	if t.Heat {
		h.scale()
	}
	h.raw(`<div class="tw"><table class="sortable`)
	if t.Heat {
		h.raw(" heat")
	}
	h.f(`" id="%s">`+"\n<thead><tr>", html.EscapeString(t.ID))
	for _, c := range t.Header {
		h.raw(`<th scope="col">`)
		h.esc(c)
		h.raw("</th>")
	}
	h.raw("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows {
		h.raw("<tr>")
		for i, c := range row {
			h.cell(c, t.RowHeads && i == 0, t.Heat)
		}
		h.raw("</tr>\n")
	}
	h.raw("</tbody></table></div>\n")
	if t.Collapsed != "" {
		h.raw("</details>\n")
	}
}

// cell writes one cell: its value as data-v (what the script sorts by),
// its heat class on a heat table, its kind as a class.
func (h *htmlWriter) cell(c tcell, head, heat bool) {
	tag := "td"
	if head {
		tag = "th"
		h.raw(`<th scope="row"`)
	} else {
		h.raw("<td")
	}
	var cls string // number and rate cells do not wrap; rates are coloured on a heat table
	if c.Kind == cellNumber || c.Kind == cellRate {
		cls = "k-" + c.Kind.String()
	}
	if heat && c.Kind == cellRate {
		cls += " " + heatClass(c.Value)
	}
	h.class(cls)
	if !math.IsNaN(c.Value) && c.Kind != cellText && c.Kind != cellCode {
		h.f(` data-v="%s"`, strconv.FormatFloat(c.Value, 'g', 6, 64))
	}
	h.raw(">")
	h.spans(c.Spans)
	h.f("</%s>", tag)
}

// contentPolicy is report.html's Content-Security-Policy: nothing loads
// from anywhere; the one style sheet and the one script run by their
// hashes; images only as data URLs; no form, no base, no plugin.
func contentPolicy() string {
	return strings.Join([]string{
		"default-src 'none'",
		"style-src " + sourceHash(pageCSS),
		"script-src " + sourceHash(pageJS),
		"img-src data:",
		"base-uri 'none'",
		"form-action 'none'",
	}, "; ")
}
