package sandbox

// LogFacts is what a run's log shows, read the way an end-state check
// needs it: which records the run wrote (as against what the initial state
// held), and what each item's calls went through.
type LogFacts struct {
	written  map[string]bool
	evidence map[string]Evidence
	lastFail map[string]bool // per tool: its last call failed for a reason the environment is to blame for
}

// Evidence is what the log shows about one item's calls.
type Evidence struct {
	Retry   bool // a call's retries ended in error: a retryable error with no later success of the same agent and tool
	Refusal bool // a call was refused (an error of kind ErrRefused)
	Failure bool // any call failed, a permission violation included
}

// ReadLog reads a log.
func ReadLog(log []LogEntry) *LogFacts {
	f := &LogFacts{written: make(map[string]bool, len(log)), evidence: make(map[string]Evidence), lastFail: map[string]bool{}}
	type callKey struct{ agent, item, tool string }
	pending := make(map[callKey]bool)
	for i := range log {
		e := &log[i]
		if e.Effect != "" {
			f.written[e.Effect] = true
		}
		switch {
		case e.Outcome == OutcomeOK || e.Outcome == OutcomeReplayed:
			f.lastFail[e.Tool] = false
		case e.Outcome == OutcomeError && (RetryableCode(e.Code) || CodeKind(e.Code) == ErrRefused):
			f.lastFail[e.Tool] = true
		}
		k := callKey{e.Agent, e.Item, e.Tool}
		switch e.Outcome {
		case OutcomeOK, OutcomeReplayed:
			if pending[k] {
				pending[k] = false
			}
		case OutcomeError, OutcomeForbidden:
			ev := f.evidence[e.Item]
			ev.Failure = true
			if e.Outcome == OutcomeError {
				switch CodeKind(e.Code) {
				case ErrTimeout, ErrUnavailable, ErrRateLimited:
					pending[k] = true
				case ErrRefused:
					ev.Refusal = true
				}
			}
			f.evidence[e.Item] = ev
		}
	}
	for k, p := range pending {
		if p {
			ev := f.evidence[k.item]
			ev.Retry = true
			f.evidence[k.item] = ev
		}
	}
	return f
}

// Written reports whether the run wrote the record with id.
func (f *LogFacts) Written(id string) bool { return f.written[id] }

// Evidence returns what the log shows about item's calls.
func (f *LogFacts) Evidence(item string) Evidence { return f.evidence[item] }

// LastCallFailed reports whether the last call of tool failed with a code
// the environment, not the caller, is to blame for (retryable, or a
// refusal).
func (f *LogFacts) LastCallFailed(tool string) bool { return f.lastFail[tool] }

// Difference is one way an end state departs from the expected one: the
// record (kind and key, e.g. "order:T1") and field that differ. A
// mission's end-state check returns them sorted by record, field, want and
// got; a kind is one of the registry's record kinds where a record is to
// blame, so that [Registry.Writer] names the agent that wrote it.
type Difference struct {
	Record string `json:"record"` // kind:key
	Field  string `json:"field"`
	Want   string `json:"want"`
	Got    string `json:"got"`
}
