package mission

import (
	"encoding/json"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/baton-lab/baton/sandbox"
)

// Retry policy of the clean mission: exponential back-off on the virtual
// clock, without jitter (backoff/v4's jitter would draw from the global
// math/rand).
const (
	retryInitial    = 200 * time.Millisecond
	retryMultiplier = 2
	retryMax        = 10 * time.Second
)

func newBackOff(clock backoff.Clock) *backoff.ExponentialBackOff {
	b := &backoff.ExponentialBackOff{
		InitialInterval:     retryInitial,
		RandomizationFactor: 0,
		Multiplier:          retryMultiplier,
		MaxInterval:         retryMax,
		MaxElapsedTime:      0,
		Stop:                backoff.Stop,
		Clock:               clock,
	}
	b.Reset()
	return b
}

// call makes one logical tool call for the current core: the ToolArgs seam
// first, then up to MaxAttempts attempts, retrying retryable errors after a
// back-off (or the rate limit's retry-after, if longer) on the virtual clock.
// A write's first attempt uses the key item:tool; retries use the key the
// RetryKey seam returns. Every attempt is a trace event; the logical call is
// folded into the core's call list. The error is nil or the last one seen.
func (r *runner) call(tool string, args sandbox.Args) (sandbox.Result, *sandbox.Error) {
	c := r.cur
	agent, item := c.agent, c.item
	r.seams.ToolArgs(agent, tool, item, args)
	argsJSON := r.marshal(args)
	key := ""
	if sandbox.Writes[tool] != "" {
		key = item + ":" + tool
	}
	var bo *backoff.ExponentialBackOff
	for attempt := 0; ; attempt++ {
		k := key
		if key != "" && attempt > 0 {
			k = r.seams.RetryKey(agent, tool, item, key, attempt)
		}
		res, err := r.sb.Call(string(agent), tool, item, args, k, attempt)
		r.cost.ToolCalls++
		ev := Event{Kind: EventToolCall, Agent: agent, Item: item, Tool: tool, Args: argsJSON, Key: k, Attempt: attempt}
		if err == nil {
			ev.Output = r.marshal(res)
			ev.Effect = effectOf(tool, res)
			r.read += len(ev.Output)
			r.event(ev)
			c.calls = append(c.calls, ToolCall{Name: tool, Args: args, Attempts: attempt + 1})
			return res, nil
		}
		se, ok := sandbox.AsError(err)
		if !ok {
			se = &sandbox.Error{Kind: sandbox.ErrUnavailable, Code: sandbox.CodeUnavailable, Message: err.Error()}
		}
		ev.Error = se.Error()
		r.read += len(ev.Error)
		r.event(ev)
		if !se.Retryable() || attempt+1 >= MaxAttempts {
			c.calls = append(c.calls, ToolCall{Name: tool, Args: args, Attempts: attempt + 1, Error: se.Code})
			return nil, se
		}
		if bo == nil {
			bo = newBackOff(r.clock)
		}
		d := bo.NextBackOff()
		if se.RetryAfter > d {
			d = se.RetryAfter
		}
		r.clock.Advance(d)
	}
}

// effectIDs names the field of a write's result that holds the id of the
// record written.
var effectIDs = map[string]string{
	sandbox.RegisterInvoice: "invoice_id",
	sandbox.RecordMatch:     "match_id",
	sandbox.ApproveInvoice:  "approval_id",
	sandbox.PostLedger:      "posting_id",
	sandbox.SchedulePayment: "payment_id",
	sandbox.Escalate:        "escalation_id",
	sandbox.RejectInvoice:   "rejection_id",
	sandbox.CloseItem:       "closure_id",
	sandbox.PublishReport:   "report_id",
}

func effectOf(tool string, res sandbox.Result) string {
	if k, ok := effectIDs[tool]; ok {
		return str(res[k])
	}
	return ""
}

// failedForGood reports whether err is a failure the core must report: any
// error except not_found, which is a business answer.
func failedForGood(err *sandbox.Error) bool {
	return err != nil && err.Kind != sandbox.ErrNotFound
}

// failureFlag is the flag an item gets when a call failed for good: the
// system was unavailable (retries ran out), or the call was refused.
func failureFlag(err *sandbox.Error) string {
	if err.Retryable() {
		return FlagSystemUnavailable
	}
	return FlagToolRefused
}

// failureReason is the escalation reason for a call that failed for good.
func failureReason(err *sandbox.Error) string {
	if err.Retryable() {
		return ReasonSystemUnavailable
	}
	return ReasonToolRefused
}

// exceptionKind classifies a failure for good.
func exceptionKind(err *sandbox.Error) string {
	if err.Retryable() {
		return ExceptionToolFailure
	}
	return ExceptionRefusal
}

// marshal encodes a decoded JSON value (or a Handoff) for the trace.
func (r *runner) marshal(v any) json.RawMessage { return r.enc.encode(v) }
