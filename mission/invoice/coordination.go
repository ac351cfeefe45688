package invoice

import "github.com/baton-lab/baton/mission"

// invoiceMission is the kernel's mission plus what the coordination record
// derived from its traces needs beyond the spec.
type invoiceMission struct{ mission.Mission }

// IrreversibleTools names the writes whose effects leave the finance
// system or commit money and people: approvals, ledger postings, payments,
// escalations, rejections and the published report. Registering an
// invoice, recording a match and closing an item are the mission's own
// bookkeeping. It implements coordination.Irreversible.
func (invoiceMission) IrreversibleTools() []string {
	return []string{ApproveInvoice, PostLedger, SchedulePayment, Escalate, RejectInvoice, PublishReport}
}

// Unwrap returns the kernel's mission, for the kernel's own uses of it
// (playing a core outside a run).
func (m invoiceMission) Unwrap() mission.Mission { return m.Mission }
