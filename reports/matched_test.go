package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/baton-lab/baton/coordination"
)

// TestMatchedMarkdownEscapes: text from scenarios and the protocol cannot
// open markup or end a table cell in matched.md.
func TestMatchedMarkdownEscapes(t *testing.T) {
	m := &Matched{Protocol: "p<b>", Mission: "m", MissionVersion: "1", Trials: 1, Scenarios: []string{"S|1"},
		Budget: MatchedBudget{Unit: "model_calls", Per: "scenario", Measure: "mean", Surplus: "none", MaxVotes: 1},
		Arms:   []MatchedArm{{Name: "multi-agent", Dimensions: make([]MatchedDimension, len(coordination.AllDimensions))}},
		Comparisons: []MatchedComparison{{Name: "matched", Single: "single agent",
			Budget: coordination.BudgetComparison{Attribution: coordination.AttrNoAdvantage, Claim: "a <script>alert(1)</script> claim"}}},
		Cases: []MatchedCase{{Scenario: "S|1", Title: "<img src=x onerror=alert(1)>", Successes: []int{1}}},
	}
	var b bytes.Buffer
	if err := WriteMatchedMarkdown(&b, m); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<script>", "<img", "<b>", "| S|1 |"} {
		if strings.Contains(md, bad) {
			t.Errorf("matched.md holds %q unescaped:\n%s", bad, md)
		}
	}
	for _, good := range []string{"&lt;img src=x onerror=alert(1)>", `S\|1`, "&lt;script>"} {
		if !strings.Contains(md, good) {
			t.Errorf("matched.md lacks %q:\n%s", good, md)
		}
	}
}

func TestMatchedPairedOf(t *testing.T) {
	p := MatchedPairedOf(10, 0, 5, 5)
	if p.Points != -25 || p.CI95Points[0] >= p.Points || p.CI95Points[1] <= p.Points || p.CI95Points[1] >= 0 {
		t.Errorf("MatchedPairedOf(10, 0, 5, 5) = %+v: want -25 points inside an interval below 0", p)
	}
}
