package triage

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// summaryTextFmt is summaryText as it was written with fmt.
func summaryTextFmt(args sandbox.Args) string {
	lang, _ := args["language"].(string)
	var b strings.Builder
	b.WriteString(greeting(lang))
	if s, _ := args["billing"].(string); s != "" {
		fmt.Fprintf(&b, " billing: %s", s)
		if n, _ := args["amount"].(float64); n != 0 {
			fmt.Fprintf(&b, " (%.2f %s, %s)", n, args["currency"], args["refund_id"])
		}
		b.WriteString(".")
	}
	if s, _ := args["tech"].(string); s != "" {
		fmt.Fprintf(&b, " tech: %s", s)
		for _, k := range []string{"article", "bug_id"} {
			if v, _ := args[k].(string); v != "" {
				fmt.Fprintf(&b, " (%s)", v)
			}
		}
		b.WriteString(".")
	}
	if id, _ := args["escalation_id"].(string); id != "" {
		fmt.Fprintf(&b, " A colleague has your ticket (%s).", id)
	}
	return b.String()
}

// TestSummaryText: the summary reads as fmt wrote it, for every kind of
// outcome and odd values (a missing currency, a number where a string
// belongs, amounts that round, infinities).
func TestSummaryText(t *testing.T) {
	for i, args := range []sandbox.Args{
		{},
		{"language": LangGerman, "billing": StatusRefunded, "amount": 12.345, "currency": "EUR", "refund_id": "REF-0001"},
		{"language": LangFrench, "billing": StatusNoRefundDue, "amount": 0.0, "tech": StatusSelfService, "article": "KB-1"},
		{"language": LangSpanish, "tech": StatusBugFiled, "bug_id": "BUG-0002", "article": "", "escalation_id": "ESC-0001"},
		{"billing": "x", "amount": -0.005, "refund_id": 7.0},
		{"billing": "x", "amount": math.Inf(1), "currency": nil},
		{"billing": "x", "amount": math.NaN(), "currency": "USD", "refund_id": ""},
		{"billing": "x", "amount": 1e21, "currency": []any{"a"}, "language": "xx"},
	} {
		if got, want := summaryText(args), summaryTextFmt(args); got != want {
			t.Errorf("case %d: summaryText = %q, fmt wrote %q", i, got, want)
		}
	}
}
