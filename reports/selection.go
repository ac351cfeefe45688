package reports

import "fmt"

// Selection is what a sweep executed and what it took from the clean
// twins (coverage-based selection): like wall time it depends on how the
// run was done, not on its results, so the experiment keeps it in
// manifest.json and hands it back for rendering ([Results.SetSelection]).
type Selection struct {
	// Mode is "coverage" or "off"; Note says why selection was off.
	Mode string `json:"mode"`
	Note string `json:"note,omitempty"`
	// Units and Items are the plan's; UnitsExecuted had at least one item
	// executed, ItemsTaken were copied from their clean twin.
	Units         int `json:"units"`
	UnitsExecuted int `json:"units_executed"`
	Items         int `json:"items"`
	ItemsTaken    int `json:"items_taken"`
	// ModelCallsAvoided and TokensAvoided are what the taken items' twins
	// spent: the calls executing them would have made.
	ModelCallsAvoided int64 `json:"model_calls_avoided"`
	TokensAvoided     int64 `json:"tokens_avoided"`
	// RunsExecuted are the mission runs (integrated and core runs alone)
	// the mutant items executed; RunsServed the core runs served to them
	// from the clean twin, where no seam of their mutant could act.
	RunsExecuted int64 `json:"runs_executed"`
	RunsServed   int64 `json:"runs_from_twin"`
	// RunsFromTrials are the runs served to them from another trial of
	// the same build and scenario, where every draw the run consulted came
	// out the same under their trial's seed.
	RunsFromTrials int64 `json:"runs_from_trials"`
}

// SetSelection sets what the sweep executed, for the cost section.
func (r *Results) SetSelection(s *Selection) { r.selection = s }

// selectionNote is the cost section's paragraph on what was executed; nil
// without a selection.
func selectionNote(r *Results) block {
	s := r.selection
	if s == nil {
		return nil
	}
	if s.Mode != "coverage" {
		note := "Every unit was executed (selection: " + s.Mode + ")"
		if s.Note != "" {
			note += ": " + s.Note
		}
		return p(note + ".")
	}
	share := func(n, of int) string {
		if of == 0 {
			return "0"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	}
	return p(fmt.Sprintf("Executed: %d of %d units (%s) and %d of %d items (%s). The other %d items were taken from their clean twin: "+
		"no seam of their mutant could act in the twin's runs, so they are the twin's runs, result for result (runs.db marks them in "+
		"items.from_twin; baton replay executes any of them). The counts above include what they would have spent; "+
		"model calls avoided: %d (%d tokens).%s",
		s.UnitsExecuted, s.Units, share(s.UnitsExecuted, s.Units), s.Items-s.ItemsTaken, s.Items, share(s.Items-s.ItemsTaken, s.Items),
		s.ItemsTaken, s.ModelCallsAvoided, s.TokensAvoided, runsNote(s)))
}

// runsNote is the sentence on the runs served to executed items from
// their twins, "" when none were.
func runsNote(s *Selection) string {
	if s.RunsServed == 0 && s.RunsFromTrials == 0 {
		return ""
	}
	trials := ""
	if s.RunsFromTrials > 0 {
		trials = fmt.Sprintf(", %d were served from another trial of the same build and scenario, every random draw they "+
			"consulted coming out the same under the trial's seed", s.RunsFromTrials)
	}
	return fmt.Sprintf(" An executed item ran its design, but not every mission run behind it: of the %d distinct mission runs the executed "+
		"mutant units needed, %d core runs alone were served from the clean twin, where no seam of the mutant could act in them%s, "+
		"and %d executed.", s.RunsExecuted+s.RunsServed+s.RunsFromTrials, s.RunsServed, trials, s.RunsExecuted)
}
