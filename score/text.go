package score

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
)

// WriteText writes r as tables: tool-call accuracy, output accuracy, the
// judge's validation (before any verdict), its verdicts, every run, then
// the headline and what is not measured. Text from the input is sanitised:
// control characters are dropped and white space collapsed.
func WriteText(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }

	ta := r.ToolCallAccuracy
	p("tool-call accuracy (n=%d)\n", ta.N)
	p("matcher\taccuracy\tpassed\tgap to exact\tforgives\n")
	for _, m := range AllMatchers {
		gap, forgives := "-", "-"
		if m != MatchExact {
			gap = ta.Gap(m)
			forgives = clean(strings.Join(r.Forgives(m), " "))
			if forgives == "" {
				forgives = "-"
			}
		}
		p("%s\t%s\t%d/%d\t%s\t%s\n", m, fmtRate(ta.Accuracy(m)), ta.Passed[m], ta.N, gap, forgives)
	}

	oa := r.OutputAccuracy
	p("\noutput accuracy (unscoreable runs are not in the denominator)\n")
	p("correct\tincorrect\tunscoreable\taccuracy\n")
	p("%d\t%d\t%d\t%s\n", oa.Correct, oa.Incorrect, oa.Unscoreable, fmtRate(oa.Accuracy))

	if r.JudgeModel == "" {
		note := r.JudgeNote
		if note == "" {
			note = "not run"
		}
		p("\njudge %s\n", clean(note))
	} else {
		if r.JudgeNote != "" {
			p("\njudge %s\n", clean(r.JudgeNote))
		}
		v := r.JudgeValidation
		p("\njudge validation (model %s, on runs with a recorded truth)\n", clean(r.JudgeModel))
		p("labelled_n\tagreement\tfalse_pass\tfalse_fail\tundetermined\tfailed\n")
		p("%d\t%s\t%d\t%d\t%d\t%d\n", v.LabelledN, fmtRate(v.Agreement), v.FalsePass, v.FalseFail, v.Undetermined, v.Failed)
		p("\njudge verdicts (model %s, unscoreable runs only)\n", clean(r.JudgeModel))
		p("run\tverdict\twhy\n")
		for _, j := range r.Judge {
			p("%s\t%s\t%s\n", clean(j.Run), j.Verdict, clean(j.Why))
		}
	}

	p("\nruns\n")
	p("run\texact\tname_only\torder_ignored\toutput\n")
	for _, rs := range r.Runs {
		e, n, o := "-", "-", "-"
		if m := rs.Matchers; m != nil {
			e, n, o = yesNo(m.Exact), yesNo(m.NameOnly), yesNo(m.OrderIgnored)
		}
		p("%s\t%s\t%s\t%s\t%s\n", clean(rs.Run), e, n, o, rs.Output)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nheadline: %s\nnot measured: %s\n", clean(r.Headline), strings.Join(r.NotMeasured, ", "))
	return err
}

func fmtRate(f *float64) string {
	if f == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *f)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// clean makes input text safe for one table cell of a terminal: control
// and other non-printable runes become spaces, white space is collapsed.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
