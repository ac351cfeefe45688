package mission

import (
	"cmp"
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

// Report entry kinds.
const (
	EntryEscalation = "escalation"
	EntryRejection  = "rejection"
)

// reportEntries builds the day's exception report from what the monitor
// received, as it read it: one entry per escalation, rejection and
// exception, sorted by item, kind and reason.
func reportEntries(inbox []*Handoff) []sandbox.ReportEntry {
	var out []sandbox.ReportEntry
	for _, h := range inbox {
		p := h.Payload
		item := str(p["email_id"])
		if item == "" {
			item = h.Item
		}
		if h.Kind == KindExceptionRaised {
			out = append(out, sandbox.ReportEntry{Item: item, Kind: str(p["kind"]), Reason: str(p["code"])})
			continue
		}
		switch str(p["decision"]) {
		case DecisionEscalated:
			out = append(out, sandbox.ReportEntry{Item: item, Kind: EntryEscalation, Reason: str(p["reason"])})
		case DecisionRejected:
			out = append(out, sandbox.ReportEntry{Item: item, Kind: EntryRejection, Reason: str(p["reason"])})
		}
	}
	slices.SortStableFunc(out, func(a, b sandbox.ReportEntry) int {
		if c := cmp.Compare(a.Item, b.Item); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	return out
}

// monitor runs the monitor's core at the end of the day: compile the
// exception report from its inbox and publish it once. The result holds the
// day, the entries and the report id.
func (r *runner) monitor(inbox []*Handoff) Result {
	entries := reportEntries(inbox)
	list := make([]any, len(entries))
	written := 0
	for i, e := range entries {
		list[i] = map[string]any{"item": e.Item, "kind": e.Kind, "reason": e.Reason}
		written += len(e.Item) + len(e.Kind) + len(e.Reason) + 30
	}
	r.model("report", "", 0, written)
	res := Result{"day": r.day, "entries": cloneValue(list), "report_id": ""}
	out, err := r.call(sandbox.PublishReport, sandbox.Args{"day": r.day, "entries": list})
	if err != nil {
		r.event(Event{Kind: EventException, Agent: Monitor, Item: r.day, Tool: sandbox.PublishReport, Reason: err.Code})
		return res
	}
	res["report_id"] = str(out["report_id"])
	return res
}
