package reports

import (
	"strings"
	"testing"
)

// TestSelectionNote checks that the cost section says how many runs were
// served to executed items from their twins, and says nothing of runs
// when none were.
func TestSelectionNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  Selection
		want []string
		not  string
	}{
		{"runs served", Selection{Mode: "coverage", Units: 10, UnitsExecuted: 6, Items: 40, ItemsTaken: 12, RunsExecuted: 30, RunsServed: 20},
			[]string{"6 of 10 units", "of the 50 distinct mission runs", "20 core runs alone were served", "30 executed"}, ""},
		{"none served", Selection{Mode: "coverage", Units: 10, UnitsExecuted: 6, Items: 40, ItemsTaken: 12, RunsExecuted: 30},
			[]string{"6 of 10 units"}, "core runs alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Results{}
			r.SetSelection(&tc.sel)
			para, ok := selectionNote(r).(*para)
			if !ok {
				t.Fatal("no selection paragraph")
			}
			text := plain(para.Spans)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("note %q holds no %q", text, w)
				}
			}
			if tc.not != "" && strings.Contains(text, tc.not) {
				t.Errorf("note %q holds %q", text, tc.not)
			}
		})
	}
}
