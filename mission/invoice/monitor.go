package invoice

import (
	"cmp"
	"context"
	"slices"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
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
func reportEntries(inbox []*mission.Handoff) []ReportEntry {
	var out []ReportEntry
	for _, h := range inbox {
		p := h.Payload
		item := str(p["email_id"])
		if item == "" {
			item = h.Item
		}
		if h.Kind == KindExceptionRaised {
			out = append(out, ReportEntry{Item: item, Kind: str(p["kind"]), Reason: str(p["code"])})
			continue
		}
		switch str(p["decision"]) {
		case DecisionEscalated:
			out = append(out, ReportEntry{Item: item, Kind: EntryEscalation, Reason: str(p["reason"])})
		case DecisionRejected:
			out = append(out, ReportEntry{Item: item, Kind: EntryRejection, Reason: str(p["reason"])})
		}
	}
	slices.SortStableFunc(out, func(a, b ReportEntry) int {
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

// monitor is the monitor's core at the end of the day: compile the
// exception report from its inbox and publish it once. The result holds the
// day, the entries and the report id.
func monitor(_ context.Context, t *mission.Turn) (mission.Result, error) {
	entries := reportEntries(t.Messages)
	list := make([]any, len(entries))
	written := 0
	for i, e := range entries {
		list[i] = map[string]any{"item": e.Item, "kind": e.Kind, "reason": e.Reason}
		written += len(e.Item) + len(e.Kind) + len(e.Reason) + 30
	}
	t.Step("report", "", 0, written)
	res := mission.Result{"day": t.Day, "entries": jsontext.Clone(list), "report_id": ""}
	out, err := t.Call(PublishReport, sandbox.Args{"day": t.Day, "entries": list})
	if err != nil {
		t.Exception(PublishReport, err.Code)
		return res, nil
	}
	res["report_id"] = str(out["report_id"])
	return res, nil
}
