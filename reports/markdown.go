package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// mdCell escapes text for a Markdown table cell: backslashes and pipes
// (so that "EUR\|x" cannot end the cell), newlines, and "<" and "&" so
// that markup a scenario carries renders as text (no tag can open without
// "<").
var mdCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "\r", " ", "&", "&amp;", "<", "&lt;")

// mdText escapes markup in running Markdown text.
var mdText = strings.NewReplacer("&", "&amp;", "<", "&lt;", "\n", " ")

// Markdown renders report.md: validity and hypotheses first, then the
// tables.
func Markdown(r *Results) []byte {
	var b bytes.Buffer
	WriteMarkdown(&b, r) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteMarkdown writes report.md to out: the report's [document] with
// everything but its figures, drill-down and traces (report.html's own).
func WriteMarkdown(out io.Writer, r *Results) error {
	return writeMarkdownDoc(out, buildReport(r.normalised(), nil))
}

// mdWriter writes Markdown to w, keeping the first error.
type mdWriter struct {
	w   io.Writer
	err error
}

func (w *mdWriter) p(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format+"\n", args...)
	}
}

// writeMarkdownDoc writes d as Markdown.
func writeMarkdownDoc(out io.Writer, d *document) error {
	w := &mdWriter{w: out}
	w.p("# %s", mdText.Replace(d.Title))
	w.p("")
	w.blocks(d.Intro)
	for _, s := range d.Sections {
		w.section(s, 2)
	}
	return w.err
}

func (w *mdWriter) section(s *section, level int) {
	if s.HTMLOnly {
		return
	}
	w.p("%s %s", strings.Repeat("#", level), mdText.Replace(s.Title))
	w.p("")
	w.blocks(s.Blocks)
	for _, c := range s.Sections {
		w.section(c, level+1)
	}
}

func (w *mdWriter) blocks(bs []block) {
	for _, b := range bs {
		switch b := b.(type) {
		case *para:
			w.p("%s", mdSpans(b.Spans, "  \n"))
			w.p("")
		case *list:
			for _, it := range b.Items {
				w.p("- %s", mdSpans(it, "  \n  "))
			}
			w.p("")
		case *box:
			w.blocks(b.Blocks)
		case *table:
			if !b.HTMLOnly {
				w.table(b)
			}
		case *figure, *viewers:
			// report.html's own: the tables carry the figures' data
		}
	}
}

// mdSpans writes spans as Markdown inline text, a hard break as br.
func mdSpans(spans []span, br string) string {
	var b strings.Builder
	for _, s := range spans {
		t := mdText.Replace(s.Text)
		switch s.Kind {
		case spanStrong:
			b.WriteString("**" + t + "**")
		case spanCode:
			b.WriteString("`" + t + "`")
		case spanRef:
			b.WriteString("*" + t + "*")
		case spanBreak:
			b.WriteString(br)
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

func (w *mdWriter) table(t *table) {
	row := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = mdCell.Replace(c)
		}
		return "| " + strings.Join(out, " | ") + " |"
	}
	w.p("%s", row(t.Header))
	w.p("|%s|", strings.Repeat("---|", len(t.Header))[:4*len(t.Header)-1])
	texts := make([]string, 0, len(t.Header))
	for _, r := range t.Rows {
		texts = texts[:0]
		for _, c := range r {
			texts = append(texts, plain(c.Spans))
		}
		w.p("%s", row(texts))
	}
	w.p("")
}
