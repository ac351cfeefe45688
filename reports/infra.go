package reports

import "fmt"

// InfraFailure is a work unit a distributed sweep gave up on: every
// delivery of it failed on the infrastructure (a worker crashed, timed
// out or could not execute it) up to the sweep's delivery limit. Its
// items are missing from every table: an infrastructure failure is never
// a verdict, neither a pass nor a flag, and the run is incomplete by
// these items until a resume executes them.
type InfraFailure struct {
	Unit     string `json:"unit"` // build/scenario/trial
	Build    string `json:"build"`
	Scenario string `json:"scenario"`
	Trial    int    `json:"trial"`
	// Items is how many of the unit's work items are missing.
	Items int `json:"items"`
	// Deliveries is how often the unit was handed to a worker.
	Deliveries int `json:"deliveries"`
	// Reason is the last failure's description.
	Reason string `json:"reason"`
}

// infraSection lists the units a distributed sweep gave up on; nil when
// there are none.
func infraSection(r *Results) *section {
	if len(r.Infrastructure) == 0 {
		return nil
	}
	items := 0
	t := &table{ID: "infrastructure-table", Header: []string{"unit", "build", "scenario", "trial", "missing items", "deliveries", "reason"}}
	for _, f := range r.Infrastructure {
		items += f.Items
		t.Rows = append(t.Rows, []tcell{textCell(f.Unit), textCell(f.Build), textCell(f.Scenario), intCell(f.Trial),
			intCell(f.Items), intCell(f.Deliveries), textCell(f.Reason)})
	}
	return &section{ID: "infrastructure", Title: "Infrastructure failures", Blocks: []block{
		&para{Class: "discarded", Spans: []span{strong("Incomplete."), text(fmt.Sprintf(
			" %d work units (%d items) failed on every delivery to a worker and are missing from every table above and below: they are neither passes nor flags. Resume the run to execute them.",
			len(r.Infrastructure), items))}},
		t}}
}
