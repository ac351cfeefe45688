package mission

import (
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/baton-lab/baton/sandbox"
)

// Retry policy of the tool box: exponential back-off on the virtual clock,
// without jitter (backoff/v4's jitter would draw from the global
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

// addCall appends c to the turn's logical calls, the first few in the
// turn's own array (a turn without calls keeps nil).
func (t *Turn) addCall(c ToolCall) {
	if t.calls == nil {
		t.calls = t.calls0[:0]
	}
	t.calls = append(t.calls, c)
}

// call makes one logical tool call for turn t (see [Turn.Call]).
func (r *runner) call(t *Turn, tool string, args sandbox.Args) (sandbox.Result, *sandbox.Error) {
	agent, item := t.Agent, t.Item
	r.seams.ToolArgs(agent, tool, item, args)
	if r.answer != nil {
		res, err := r.answer(tool, args)
		call := ToolCall{Name: tool, Args: args, Attempts: 1}
		if err != nil {
			call.Error = err.Code
		}
		t.addCall(call)
		return res, err
	}
	argsJSON := r.marshal(args)
	key, resultID := "", ""
	tl, idx, ok := r.e.spec.Tools.Index(tool)
	if ok && tl.Access == sandbox.Write {
		key, resultID = r.writeKey(item, idx), tl.ResultID
	}
	var bo *backoff.ExponentialBackOff
	for attempt := 0; ; attempt++ {
		k := key
		if key != "" && attempt > 0 {
			k = r.seams.RetryKey(agent, tool, item, key, attempt)
		}
		res, err := r.sb.CallTool(idx, string(agent), tool, item, args, k, attempt)
		r.cost.ToolCalls++
		ev := Event{Kind: EventToolCall, Agent: agent, Item: item, Tool: tool, Args: argsJSON, Key: k, Attempt: attempt}
		if err == nil {
			ev.Output = r.enc.EncodeKept(res) // a read memo hands out the same results again
			if resultID != "" {
				ev.Effect, _ = res[resultID].(string)
			}
			r.read += len(ev.Output)
			r.event(ev)
			t.addCall(ToolCall{Name: tool, Args: args, Attempts: attempt + 1})
			return res, nil
		}
		se, ok := sandbox.AsError(err)
		if !ok {
			se = &sandbox.Error{Kind: sandbox.ErrUnavailable, Code: sandbox.CodeUnavailable, Message: err.Error()}
		}
		ev.Error = se.Error()
		r.read += len(ev.Error)
		r.event(ev)
		if !se.Retryable() || attempt+1 >= r.e.spec.MaxAttempts {
			t.addCall(ToolCall{Name: tool, Args: args, Attempts: attempt + 1, Error: se.Code})
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
