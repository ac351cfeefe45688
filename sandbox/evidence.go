package sandbox

// LogFacts is what a run's log shows, read the way an end-state check
// needs it: which records the run wrote (as against what the initial state
// held), and what each item's calls went through. It reads the log when
// asked, without an index: an end-state check asks a few questions of a
// log of a few dozen calls.
type LogFacts struct {
	log []LogEntry
}

// Evidence is what the log shows about one item's calls.
type Evidence struct {
	Retry   bool // a call's retries ended in error: a retryable error with no later success of the same agent and tool
	Refusal bool // a call was refused (an error of kind ErrRefused)
	Failure bool // any call failed, a permission violation included
}

// ReadLog reads a log, which must not change while the facts are used.
func ReadLog(log []LogEntry) *LogFacts { return &LogFacts{log: log} }

// Written reports whether the run wrote the record with id.
func (f *LogFacts) Written(id string) bool {
	if id == "" {
		return false
	}
	for i := range f.log {
		if f.log[i].Effect == id {
			return true
		}
	}
	return false
}

// Evidence returns what the log shows about item's calls.
func (f *LogFacts) Evidence(item string) Evidence {
	var ev Evidence
	for i := range f.log {
		e := &f.log[i]
		if e.Item != item || (e.Outcome != OutcomeError && e.Outcome != OutcomeForbidden) {
			continue
		}
		ev.Failure = true
		if e.Outcome != OutcomeError {
			continue
		}
		switch CodeKind(e.Code) {
		case ErrTimeout, ErrUnavailable, ErrRateLimited:
			ev.Retry = ev.Retry || !f.succeedsAfter(i)
		case ErrRefused:
			ev.Refusal = true
		}
	}
	return ev
}

// succeedsAfter reports whether a later call of the same agent, item and
// tool as the entry at i succeeded (or replayed a success).
func (f *LogFacts) succeedsAfter(i int) bool {
	e := &f.log[i]
	for j := i + 1; j < len(f.log); j++ {
		l := &f.log[j]
		if (l.Outcome == OutcomeOK || l.Outcome == OutcomeReplayed) && l.Agent == e.Agent && l.Item == e.Item && l.Tool == e.Tool {
			return true
		}
	}
	return false
}

// LastCallFailed reports whether the last call of tool failed with a code
// the environment, not the caller, is to blame for (retryable, or a
// refusal). Calls that failed otherwise do not count as last.
func (f *LogFacts) LastCallFailed(tool string) bool {
	for i := len(f.log) - 1; i >= 0; i-- {
		e := &f.log[i]
		switch {
		case e.Tool != tool:
		case e.Outcome == OutcomeOK || e.Outcome == OutcomeReplayed:
			return false
		case e.Outcome == OutcomeError && (RetryableCode(e.Code) || CodeKind(e.Code) == ErrRefused):
			return true
		}
	}
	return false
}

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
