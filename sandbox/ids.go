package sandbox

import (
	"strconv"
	"strings"
)

// recKind indexes the record kinds whose ids the sandbox issues.
type recKind uint8

const (
	kInvoice recKind = iota
	kMatch
	kLedger
	kApproval
	kPayment
	kEscalation
	kRejection
	kClosure
	kReport
	numKinds
)

// idPrefixes are the id prefixes per record kind: "INV-0001", "PAY-0001"...
var idPrefixes = [numKinds]string{"INV", "MAT", "LED", "APR", "PAY", "ESC", "REJ", "CLO", "REP"}

// resultKeys names the field of a write's result that holds the new id.
var resultKeys = [numTools]string{
	tRegisterInvoice: "invoice_id",
	tRecordMatch:     "match_id",
	tApproveInvoice:  "approval_id",
	tPostLedger:      "posting_id",
	tSchedulePayment: "payment_id",
	tEscalate:        "escalation_id",
	tRejectInvoice:   "rejection_id",
	tCloseItem:       "closure_id",
	tPublishReport:   "report_id",
}

// newID issues the next id of kind: a per-kind counter, four digits at least.
func (s *Sandbox) newID(k recKind) string {
	s.next[k]++
	var buf [24]byte
	b := append(buf[:0], idPrefixes[k]...)
	b = append(b, '-')
	n := s.next[k]
	for w := 1000; w > 1 && n < w; w /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return string(b)
}

// initCounters starts each counter after the highest id of its kind already
// in the initial state, so issued ids never collide with authored ones.
func (s *Sandbox) initCounters() {
	st := &s.st
	for i := range st.Invoices {
		s.seen(kInvoice, st.Invoices[i].ID)
	}
	for i := range st.Matches {
		s.seen(kMatch, st.Matches[i].ID)
	}
	for i := range st.Ledger {
		s.seen(kLedger, st.Ledger[i].ID)
	}
	for i := range st.Approvals {
		s.seen(kApproval, st.Approvals[i].ID)
	}
	for i := range st.Payments {
		s.seen(kPayment, st.Payments[i].ID)
	}
	for i := range st.Escalations {
		s.seen(kEscalation, st.Escalations[i].ID)
	}
	for i := range st.Rejections {
		s.seen(kRejection, st.Rejections[i].ID)
	}
	for i := range st.Closures {
		s.seen(kClosure, st.Closures[i].ID)
	}
	for i := range st.Reports {
		s.seen(kReport, st.Reports[i].ID)
	}
}

func (s *Sandbox) seen(k recKind, id string) {
	rest, ok := strings.CutPrefix(id, idPrefixes[k]+"-")
	if !ok {
		return
	}
	if n, err := strconv.Atoi(rest); err == nil && n > s.next[k] {
		s.next[k] = n
	}
}
