package invoice

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-lab/baton/sandbox"
)

// allFaults sets every drawn fault kind to rate p on every tool.
// drawnKinds are the fault kinds a tool call draws, in draw order.
var drawnKinds = []sandbox.FaultKind{sandbox.TimeoutBeforeCommit, sandbox.Refusal, sandbox.Unavailable, sandbox.RateLimit, sandbox.Latency, sandbox.TimeoutAfterCommit}

func allFaults(p float64) sandbox.FaultRates {
	m := map[sandbox.FaultKind]float64{}
	for _, k := range drawnKinds {
		m[k] = p
	}
	return sandbox.FaultRates{"*": m}
}

func only(kind sandbox.FaultKind) sandbox.FaultRates { return sandbox.FaultRates{"*": {kind: 1}} }

// outcome is what one call did, as a test compares it.
type outcome struct {
	Kind        sandbox.ErrorKind // "" on success
	Code        string
	Escalations int // records after the call
	ElapsedMS   int64
	Log         sandbox.LogEntry
	Fired       []sandbox.Fired
}

func escalateOnce(tb testing.TB, rates sandbox.FaultRates) (outcome, *sandbox.Error) {
	tb.Helper()
	s := newSandbox(tb, rates)
	_, err := s.Call("boundary", Escalate, "E1", sandbox.Args{"item": "E1", "reason": "above_threshold"}, "E1:escalate", 2)
	var o outcome
	e, _ := sandbox.AsError(err)
	if e != nil {
		o.Kind, o.Code = e.Kind, e.Code
	}
	o.Escalations = len(recs(s.Snapshot()).Escalations)
	o.ElapsedMS = s.Clock().Elapsed()
	o.Log = lastLog(tb, s)
	o.Fired = s.Fired()
	return o, e
}

func TestFaultKinds(t *testing.T) {
	logEntry := func(outcome, code, effect string, at int64) sandbox.LogEntry {
		return sandbox.LogEntry{Seq: 1, At: at, Agent: "boundary", Tool: Escalate, Item: "E1", Key: "E1:escalate", Outcome: outcome, Code: code, Effect: effect}
	}
	fired := func(kind sandbox.FaultKind, code string, at int64) []sandbox.Fired {
		return []sandbox.Fired{{At: at, Agent: "boundary", Tool: Escalate, Item: "E1", Attempt: 2, Kind: kind, Code: code}}
	}
	ignoreRefusalCode := cmpopts.IgnoreFields(outcome{}, "Code", "Log.Code", "Fired")
	for _, tc := range []struct {
		name  string
		rates sandbox.FaultRates
		want  outcome
		opts  cmp.Option
	}{
		{"none", nil, outcome{Escalations: 1, ElapsedMS: 20, Log: logEntry(sandbox.OutcomeOK, "", "ESC-0001", 20)}, nil},
		{"timeout before commit", only(sandbox.TimeoutBeforeCommit), outcome{Kind: sandbox.ErrTimeout, Code: sandbox.CodeTimeout, ElapsedMS: 20,
			Log: logEntry(sandbox.OutcomeError, sandbox.CodeTimeout, "", 20), Fired: fired(sandbox.TimeoutBeforeCommit, sandbox.CodeTimeout, 20)}, nil},
		{"refusal", only(sandbox.Refusal), outcome{Kind: sandbox.ErrRefused, ElapsedMS: 20, Log: logEntry(sandbox.OutcomeError, "", "", 20)}, ignoreRefusalCode},
		{"unavailable", only(sandbox.Unavailable), outcome{Kind: sandbox.ErrUnavailable, Code: sandbox.CodeUnavailable, ElapsedMS: 20,
			Log: logEntry(sandbox.OutcomeError, sandbox.CodeUnavailable, "", 20), Fired: fired(sandbox.Unavailable, sandbox.CodeUnavailable, 20)}, nil},
		{"rate limit", only(sandbox.RateLimit), outcome{Kind: sandbox.ErrRateLimited, Code: sandbox.CodeRateLimited, ElapsedMS: 20,
			Log: logEntry(sandbox.OutcomeError, sandbox.CodeRateLimited, "", 20), Fired: fired(sandbox.RateLimit, sandbox.CodeRateLimited, 20)}, nil},
		{"latency", only(sandbox.Latency), outcome{Escalations: 1, ElapsedMS: 120,
			Log: logEntry(sandbox.OutcomeOK, "", "ESC-0001", 120), Fired: fired(sandbox.Latency, "", 120)}, nil},
		{"timeout after commit", only(sandbox.TimeoutAfterCommit), outcome{Kind: sandbox.ErrTimeout, Code: sandbox.CodeTimeout, Escalations: 1, ElapsedMS: 20,
			Log: logEntry(sandbox.OutcomeError, sandbox.CodeTimeout, "ESC-0001", 20), Fired: fired(sandbox.TimeoutAfterCommit, sandbox.CodeTimeout, 20)}, nil},
		{"all: timeout before commit is drawn first", allFaults(1), outcome{Kind: sandbox.ErrTimeout, Code: sandbox.CodeTimeout, ElapsedMS: 20,
			Log: logEntry(sandbox.OutcomeError, sandbox.CodeTimeout, "", 20), Fired: fired(sandbox.TimeoutBeforeCommit, sandbox.CodeTimeout, 20)}, nil},
		{"per-tool rate wins over *", sandbox.FaultRates{"*": {sandbox.Unavailable: 1}, Escalate: {sandbox.Unavailable: 0}},
			outcome{Escalations: 1, ElapsedMS: 20, Log: logEntry(sandbox.OutcomeOK, "", "ESC-0001", 20)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := escalateOnce(t, tc.rates)
			if diff := cmp.Diff(tc.want, got, tc.opts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFaultOrder(t *testing.T) {
	// Each kind, with every later kind also certain, is the one that fires.
	for i, kind := range drawnKinds {
		t.Run(string(kind), func(t *testing.T) {
			m := map[sandbox.FaultKind]float64{}
			for _, later := range drawnKinds[i:] {
				m[later] = 1
			}
			got, _ := escalateOnce(t, sandbox.FaultRates{"*": m})
			var kinds []sandbox.FaultKind
			for _, f := range got.Fired {
				kinds = append(kinds, f.Kind)
			}
			want := []sandbox.FaultKind{kind}
			if kind == sandbox.Latency { // slow, then the answer is lost
				want = append(want, sandbox.TimeoutAfterCommit)
			}
			if diff := cmp.Diff(want, kinds); diff != "" {
				t.Errorf("fired (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusalCodes(t *testing.T) {
	seen := map[string]bool{}
	for item := range 60 {
		s := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: only(sandbox.Refusal)}, sandbox.NewDice(uint64(item)), nil)
		e := mustFail(t, s, "intake", LookupSupplier, "E1", sandbox.Args{"supplier_id": "S1"}, "", 0)
		if e.Kind != sandbox.ErrRefused || e.Retryable() {
			t.Fatalf("refusal %v: want a non-retryable refused error", e)
		}
		if f := s.Fired(); len(f) != 1 || f[0].Code != e.Code {
			t.Fatalf("fired %v, want one refusal with code %s", f, e.Code)
		}
		seen[e.Code+" "+e.Message] = true
	}
	want := map[string]bool{
		"AUTH-401 token expired": true, "VAL-400 request failed schema validation": true,
		"BR-429 daily limit for this operation reached": true,
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("refusals drawn over 60 seeds (-want +got):\n%s", diff)
	}
}

func TestRetryAfter(t *testing.T) {
	seen := map[time.Duration]bool{}
	for attempt := range 80 {
		s := newSandbox(t, only(sandbox.RateLimit))
		e := mustFail(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "", attempt)
		if e.Kind != sandbox.ErrRateLimited || !e.Retryable() {
			t.Fatalf("got %v, want a retryable rate limit", e)
		}
		seen[e.RetryAfter] = true
	}
	want := map[time.Duration]bool{time.Second: true, 2 * time.Second: true, 3 * time.Second: true, 4 * time.Second: true, 5 * time.Second: true}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("RetryAfter values over 80 attempts (-want +got):\n%s", diff)
	}
}

func TestFaultsApplyToReads(t *testing.T) {
	for _, kind := range []sandbox.FaultKind{sandbox.TimeoutBeforeCommit, sandbox.Refusal, sandbox.Unavailable, sandbox.RateLimit} {
		s := newSandbox(t, only(kind))
		mustFail(t, s, "intake", FindInvoice, "E1", sandbox.Args{"supplier_id": "S1", "number": "A-77"}, "", 0)
		if f := s.Fired(); len(f) != 1 || f[0].Kind != kind {
			t.Errorf("%s on a read: fired %v", kind, f)
		}
	}
	// A read has no commit to lose.
	s := newSandbox(t, only(sandbox.TimeoutAfterCommit))
	mustCall(t, s, "intake", FindInvoice, "E1", sandbox.Args{"supplier_id": "S1", "number": "A-77"}, "")
	if f := s.Fired(); len(f) != 0 {
		t.Errorf("timeout after commit fired on a read: %v", f)
	}
}

// attemptWhere returns the first attempt at which a fault of kind on tool
// for item fires (want true) or does not (want false).
func attemptWhere(tb testing.TB, d sandbox.Dice, p float64, agent, tool, item string, kind sandbox.FaultKind, want bool) int {
	tb.Helper()
	for a := range 1000 {
		if d.Chance(p, agent, sandbox.FaultKey(tool, kind), item, a) == want {
			return a
		}
	}
	tb.Fatalf("no attempt with %s fired=%v", kind, want)
	return 0
}

func TestTimeoutAfterCommitThenRetry(t *testing.T) {
	rates := sandbox.FaultRates{SchedulePayment: {sandbox.TimeoutAfterCommit: 0.5}}
	d := sandbox.NewDice(42)
	lost := attemptWhere(t, d, 0.5, "boundary", SchedulePayment, "E1", sandbox.TimeoutAfterCommit, true)
	heard := attemptWhere(t, d, 0.5, "boundary", SchedulePayment, "E1", sandbox.TimeoutAfterCommit, false)
	payArgs := func(inv string) sandbox.Args {
		return sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
	}
	for _, tc := range []struct {
		name     string
		key      string
		payments int
	}{
		{"same key: the retry hears the first payment", "E1:schedule_payment", 2},
		{"no key: the retry pays again", "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, d, nil)
			inv := approvedInvoice(t, s)
			e := mustFail(t, s, "boundary", SchedulePayment, "E1", payArgs(inv), tc.key, lost)
			if e.Kind != sandbox.ErrTimeout {
				t.Fatalf("got %v, want a timeout", e)
			}
			if n := len(recs(s.Snapshot()).Payments); n != 2 {
				t.Fatalf("%d payments after a timeout after commit, want 2 (the write happened)", n)
			}
			res, err := s.Call("boundary", SchedulePayment, "E1", payArgs(inv), tc.key, heard)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(recs(s.Snapshot()).Payments); n != tc.payments {
				t.Errorf("%d payments after the retry, want %d", n, tc.payments)
			}
			if tc.key != "" && res["payment_id"] != "PAY-0004" {
				t.Errorf("retry answered %v, want the first payment PAY-0004", res)
			}
		})
	}
}

func TestFaultRate(t *testing.T) {
	s := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: sandbox.FaultRates{LookupSupplier: {sandbox.Unavailable: 0.25}}}, sandbox.NewDice(7), nil)
	const n = 4000
	failed := 0
	for i := range n {
		if _, err := s.Call("intake", LookupSupplier, "E"+itoa(i), sandbox.Args{"supplier_id": "S1"}, "", 0); err != nil {
			failed++
		}
	}
	if got := float64(failed) / n; got < 0.22 || got > 0.28 {
		t.Errorf("unavailable on %.3f of calls, want about 0.25", got)
	}
	if len(s.Fired()) != failed {
		t.Errorf("%d faults fired, %d calls failed", len(s.Fired()), failed)
	}
}

// TestFaultsKeyedByDecision: a run that makes extra calls first still sees
// the same faults at every call the two runs share.
func TestFaultsKeyedByDecision(t *testing.T) {
	rates := allFaults(0.2)
	calls := func(s *sandbox.Sandbox) []string {
		var out []string
		for i := range 40 {
			_, err := s.Call("intake", LookupSupplier, "E"+itoa(i%8), sandbox.Args{"supplier_id": "S1"}, "", i/8)
			out = append(out, errString(err))
		}
		return out
	}
	a := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(3), nil)
	b := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(3), nil)
	for i := range 25 { // b takes extra calls (an extra retry, other items)
		b.Call("intake", LookupSupplier, "X"+itoa(i), sandbox.Args{"supplier_id": "S1"}, "", i)
	}
	if diff := cmp.Diff(calls(a), calls(b)); diff != "" {
		t.Errorf("extra calls changed later faults (-a +b):\n%s", diff)
	}
	c := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(4), nil)
	if cmp.Equal(calls(sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(3), nil)), calls(c)) {
		t.Errorf("seeds 3 and 4 drew the same 40 faults")
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
