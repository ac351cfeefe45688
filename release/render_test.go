package release

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportEscapes: names and titles from protocols and scenarios reach
// the Markdown and HTML reports escaped.
func TestReportEscapes(t *testing.T) {
	r := &Result{Protocol: "p<script>", Mission: "m", Trials: 1, Rounds: 1, Looks: 1,
		Baseline:  Arm{Name: "<b>old</b>"},
		Candidate: Arm{Name: "new|x"},
		Cases:     []Case{{Scenario: "S1", Title: "<img src=x onerror=alert(1)> | *bold*", Category: "typical", Trials: 1}},
	}
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", "<img", "<b>old"} {
		if strings.Contains(md.String(), bad) || strings.Contains(page.String(), bad) {
			t.Errorf("%q reached a report unescaped", bad)
		}
	}
	if !strings.Contains(md.String(), `new\|x`) || !strings.Contains(page.String(), "&lt;img src=x") {
		t.Error("the escaped text is missing from the reports")
	}
}
