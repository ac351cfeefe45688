package sandbox

import "time"

// toolID indexes the tools in per-sandbox tables.
type toolID uint8

const (
	tLookupSupplier toolID = iota
	tFindInvoice
	tRegisterInvoice
	tGetPurchaseOrder
	tGetGoodsReceipts
	tRecordMatch
	tApproveInvoice
	tPostLedger
	tSchedulePayment
	tEscalate
	tRejectInvoice
	tCloseItem
	tPublishReport
	numTools
)

var toolNames = [numTools]string{
	LookupSupplier, FindInvoice, RegisterInvoice, GetPurchaseOrder, GetGoodsReceipts,
	RecordMatch, ApproveInvoice, PostLedger, SchedulePayment, Escalate, RejectInvoice,
	CloseItem, PublishReport,
}

// toolIndex returns the index of a tool name.
func toolIndex(name string) (toolID, bool) {
	switch name {
	case LookupSupplier:
		return tLookupSupplier, true
	case FindInvoice:
		return tFindInvoice, true
	case RegisterInvoice:
		return tRegisterInvoice, true
	case GetPurchaseOrder:
		return tGetPurchaseOrder, true
	case GetGoodsReceipts:
		return tGetGoodsReceipts, true
	case RecordMatch:
		return tRecordMatch, true
	case ApproveInvoice:
		return tApproveInvoice, true
	case PostLedger:
		return tPostLedger, true
	case SchedulePayment:
		return tSchedulePayment, true
	case Escalate:
		return tEscalate, true
	case RejectInvoice:
		return tRejectInvoice, true
	case CloseItem:
		return tCloseItem, true
	case PublishReport:
		return tPublishReport, true
	}
	return 0, false
}

// The fault kinds a tool call draws, in draw order. Redelivery belongs to
// the transport and is not drawn here.
const (
	fTimeoutBefore = iota
	fRefusal
	fUnavailable
	fRateLimit
	fLatency
	fTimeoutAfter
	numDrawn
)

var drawnKinds = [numDrawn]FaultKind{TimeoutBeforeCommit, Refusal, Unavailable, RateLimit, Latency, TimeoutAfterCommit}

// LatencyFactor is how many extra multiples of Config.Latency a Latency
// fault adds to a call.
const LatencyFactor = 5

// FaultKey returns the decision kind a fault of kind on tool is drawn under:
// "fault:" + tool + ":" + kind. The transport draws redelivery with
// FaultKey("transport", Redelivery).
func FaultKey(tool string, kind FaultKind) string { return "fault:" + tool + ":" + string(kind) }

// Precomputed decision kinds, so that a call builds no strings to draw.
var (
	faultKeys    [numTools][numDrawn]string
	refusalKeys  [numTools]string // which refusal code
	retryKeys    [numTools]string // how long a rate limit asks to wait
	writeRecords [numTools]string // record kind of a write, "" for reads
)

func init() {
	for t, name := range toolNames {
		for k, kind := range drawnKinds {
			faultKeys[t][k] = FaultKey(name, kind)
		}
		refusalKeys[t] = FaultKey(name, Refusal) + ":code"
		retryKeys[t] = FaultKey(name, RateLimit) + ":retry_after"
		writeRecords[t] = Writes[name]
	}
}

// refusals are the injected refusals, one per family.
var refusals = [...]struct{ code, msg string }{
	{CodeTokenExpired, "token expired"},
	{CodeBadRequest, "request failed schema validation"},
	{CodeDailyLimit, "daily limit for this operation reached"},
}

// compileRates resolves a FaultRates table into per-tool arrays once, so a
// call does no map lookups to draw. It gives what [FaultRates.Rate] gives.
func compileRates(r FaultRates) (out [numTools][numDrawn]float64) {
	for kind, p := range r["*"] {
		if k, ok := drawnIndex(kind); ok {
			for t := range out {
				out[t][k] = p
			}
		}
	}
	for tool, m := range r {
		t, ok := toolIndex(tool)
		if !ok {
			continue
		}
		for kind, p := range m {
			if k, ok := drawnIndex(kind); ok {
				out[t][k] = p
			}
		}
	}
	return out
}

func drawnIndex(kind FaultKind) (int, bool) {
	for k, d := range drawnKinds {
		if d == kind {
			return k, true
		}
	}
	return 0, false
}

// inject draws the faults that precede a call's effect, in order, and
// returns the first that fires as an error (nil if none does). A latency
// fault does not fail the call; it advances the clock.
func (s *Sandbox) inject(t toolID, agent, item string, attempt int) *Error {
	r := &s.rates[t]
	k := &faultKeys[t]
	if s.dice.Chance(r[fTimeoutBefore], agent, k[fTimeoutBefore], item, attempt) {
		e := &Error{Kind: ErrTimeout, Code: CodeTimeout, Message: "request timed out"}
		s.fire(t, agent, item, attempt, TimeoutBeforeCommit, e.Code)
		return e
	}
	if s.dice.Chance(r[fRefusal], agent, k[fRefusal], item, attempt) {
		ref := refusals[s.dice.Rand(agent, refusalKeys[t], item, attempt).IntN(len(refusals))]
		e := &Error{Kind: ErrRefused, Code: ref.code, Message: ref.msg}
		s.fire(t, agent, item, attempt, Refusal, e.Code)
		return e
	}
	if s.dice.Chance(r[fUnavailable], agent, k[fUnavailable], item, attempt) {
		e := &Error{Kind: ErrUnavailable, Code: CodeUnavailable, Message: "service unavailable"}
		s.fire(t, agent, item, attempt, Unavailable, e.Code)
		return e
	}
	if s.dice.Chance(r[fRateLimit], agent, k[fRateLimit], item, attempt) {
		wait := time.Duration(1+s.dice.Rand(agent, retryKeys[t], item, attempt).IntN(5)) * time.Second
		e := &Error{Kind: ErrRateLimited, Code: CodeRateLimited, Message: "too many requests", RetryAfter: wait}
		s.fire(t, agent, item, attempt, RateLimit, e.Code)
		return e
	}
	if s.dice.Chance(r[fLatency], agent, k[fLatency], item, attempt) {
		s.clock.Advance(LatencyFactor * s.latency)
		s.fire(t, agent, item, attempt, Latency, "")
	}
	return nil
}

// timeoutAfter draws whether the answer to a committed write is lost.
func (s *Sandbox) timeoutAfter(t toolID, agent, item string, attempt int) *Error {
	if !s.dice.Chance(s.rates[t][fTimeoutAfter], agent, faultKeys[t][fTimeoutAfter], item, attempt) {
		return nil
	}
	e := &Error{Kind: ErrTimeout, Code: CodeTimeout, Message: "request timed out"}
	s.fire(t, agent, item, attempt, TimeoutAfterCommit, e.Code)
	return e
}

func (s *Sandbox) fire(t toolID, agent, item string, attempt int, kind FaultKind, code string) {
	s.fired = append(s.fired, Fired{
		At: s.clock.Elapsed(), Agent: agent, Tool: toolNames[t], Item: item,
		Attempt: attempt, Kind: kind, Code: code,
	})
}
