package sandbox

import "time"

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

// refusals are the injected refusals, one per family.
var refusals = [...]struct{ code, msg string }{
	{CodeTokenExpired, "token expired"},
	{CodeBadRequest, "request failed schema validation"},
	{CodeDailyLimit, "daily limit for this operation reached"},
}

// compileRates resolves a FaultRates table into per-tool arrays, so a
// call does no map lookups to draw. It gives what [FaultRates.Rate] gives.
// Every run compiles its table, so kinds are resolved by a switch.
func (reg *Registry) compileRates(out [][numDrawn]float64, r FaultRates) {
	var star [numDrawn]float64
	for kind, p := range r["*"] {
		if k, ok := drawnIndex(kind); ok {
			star[k] = p
		}
	}
	for t := range out {
		out[t] = star
	}
	for tool, m := range r {
		t, ok := reg.byName[tool]
		if !ok {
			continue
		}
		for kind, p := range m {
			if k, ok := drawnIndex(kind); ok {
				out[t][k] = p
			}
		}
	}
}

func drawnIndex(kind FaultKind) (int, bool) {
	switch kind {
	case TimeoutBeforeCommit:
		return fTimeoutBefore, true
	case Refusal:
		return fRefusal, true
	case Unavailable:
		return fUnavailable, true
	case RateLimit:
		return fRateLimit, true
	case Latency:
		return fLatency, true
	case TimeoutAfterCommit:
		return fTimeoutAfter, true
	}
	return 0, false
}

// drawPrefixes are the key prefixes of one tool's fault draws for the
// agent that called it last, each computed when first drawn: a call
// draws up to six faults, each keyed by agent, kind, item and attempt,
// and the agent and kind cost most of the hashing.
type drawPrefixes struct {
	agent string
	have  uint8 // bit k: h[k] is computed
	h     [numDrawn]uint64
}

// draws reports whether the fault of kind k of tool t happens on agent's
// call for item: [Dice.Chance] of its rate and key.
func (s *Sandbox) draws(t, k int, agent, item string, attempt int) bool {
	p := s.rates[t][k]
	if p <= 0 || p >= 1 {
		return p >= 1
	}
	if s.pre == nil {
		s.pre = make([]drawPrefixes, len(s.rates))
	}
	pre := &s.pre[t]
	if pre.agent != agent {
		pre.agent, pre.have = agent, 0
	}
	if pre.have&(1<<k) == 0 {
		if s.seedPre == nil {
			s.seedPre = s.reg.prefixesOf(s.dice.Seed())
		}
		pre.h[k] = s.reg.prefix(s.seedPre, s.dice, t, k, agent)
		pre.have |= 1 << k
	}
	ok := chanceAfter(p, pre.h[k], item, attempt)
	if s.dice.rec != nil {
		s.dice.rec.add(agent, s.reg.faultKeys[t][k], item, attempt, p, ok)
	}
	return ok
}

// inject draws the faults that precede a call's effect, in order, and
// returns the first that fires as an error (nil if none does). A latency
// fault does not fail the call; it advances the clock.
func (s *Sandbox) inject(t int, agent, item string, attempt int) *Error {
	if s.draws(t, fTimeoutBefore, agent, item, attempt) {
		e := &Error{Kind: ErrTimeout, Code: CodeTimeout, Message: "request timed out"}
		s.fire(t, agent, item, attempt, TimeoutBeforeCommit, e.Code)
		return e
	}
	if s.draws(t, fRefusal, agent, item, attempt) {
		ref := refusals[s.dice.Rand(agent, s.reg.refusalKey[t], item, attempt).IntN(len(refusals))]
		e := &Error{Kind: ErrRefused, Code: ref.code, Message: ref.msg}
		s.fire(t, agent, item, attempt, Refusal, e.Code)
		return e
	}
	if s.draws(t, fUnavailable, agent, item, attempt) {
		e := &Error{Kind: ErrUnavailable, Code: CodeUnavailable, Message: "service unavailable"}
		s.fire(t, agent, item, attempt, Unavailable, e.Code)
		return e
	}
	if s.draws(t, fRateLimit, agent, item, attempt) {
		wait := time.Duration(1+s.dice.Rand(agent, s.reg.retryKey[t], item, attempt).IntN(5)) * time.Second
		e := &Error{Kind: ErrRateLimited, Code: CodeRateLimited, Message: "too many requests", RetryAfter: wait}
		s.fire(t, agent, item, attempt, RateLimit, e.Code)
		return e
	}
	if s.draws(t, fLatency, agent, item, attempt) {
		s.clock.Advance(LatencyFactor * s.latency)
		s.fire(t, agent, item, attempt, Latency, "")
	}
	return nil
}

// timeoutAfter draws whether the answer to a committed write is lost.
func (s *Sandbox) timeoutAfter(t int, agent, item string, attempt int) *Error {
	if !s.draws(t, fTimeoutAfter, agent, item, attempt) {
		return nil
	}
	e := &Error{Kind: ErrTimeout, Code: CodeTimeout, Message: "request timed out"}
	s.fire(t, agent, item, attempt, TimeoutAfterCommit, e.Code)
	return e
}

func (s *Sandbox) fire(t int, agent, item string, attempt int, kind FaultKind, code string) {
	s.fired = append(s.fired, Fired{
		At: s.clock.Elapsed(), Agent: agent, Tool: s.reg.tools[t].Name, Item: item,
		Attempt: attempt, Kind: kind, Code: code,
	})
}
