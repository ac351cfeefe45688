package sandbox

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// allFaults sets every drawn fault kind to rate p on every tool.
func allFaults(p float64) FaultRates {
	m := map[FaultKind]float64{}
	for _, k := range drawnKinds {
		m[k] = p
	}
	return FaultRates{"*": m}
}

func only(kind FaultKind) FaultRates { return FaultRates{"*": {kind: 1}} }

// outcome is what one call did, as a test compares it.
type outcome struct {
	Kind        ErrorKind // "" on success
	Code        string
	Escalations int // records after the call
	ElapsedMS   int64
	Log         LogEntry
	Fired       []Fired
}

func escalateOnce(tb testing.TB, rates FaultRates) (outcome, *Error) {
	tb.Helper()
	s := newSandbox(tb, rates)
	_, err := s.Call("boundary", Escalate, "E1", Args{"item": "E1", "reason": "above_threshold"}, "E1:escalate", 2)
	var o outcome
	e, _ := AsError(err)
	if e != nil {
		o.Kind, o.Code = e.Kind, e.Code
	}
	o.Escalations = len(s.Snapshot().Escalations)
	o.ElapsedMS = s.Clock().Elapsed()
	o.Log = lastLog(tb, s)
	o.Fired = s.Fired()
	return o, e
}

func TestFaultKinds(t *testing.T) {
	logEntry := func(outcome, code, effect string, at int64) LogEntry {
		return LogEntry{Seq: 1, At: at, Agent: "boundary", Tool: Escalate, Item: "E1", Key: "E1:escalate", Outcome: outcome, Code: code, Effect: effect}
	}
	fired := func(kind FaultKind, code string, at int64) []Fired {
		return []Fired{{At: at, Agent: "boundary", Tool: Escalate, Item: "E1", Attempt: 2, Kind: kind, Code: code}}
	}
	ignoreRefusalCode := cmpopts.IgnoreFields(outcome{}, "Code", "Log.Code", "Fired")
	for _, tc := range []struct {
		name  string
		rates FaultRates
		want  outcome
		opts  cmp.Option
	}{
		{"none", nil, outcome{Escalations: 1, ElapsedMS: 20, Log: logEntry(OutcomeOK, "", "ESC-0001", 20)}, nil},
		{"timeout before commit", only(TimeoutBeforeCommit), outcome{Kind: ErrTimeout, Code: CodeTimeout, ElapsedMS: 20,
			Log: logEntry(OutcomeError, CodeTimeout, "", 20), Fired: fired(TimeoutBeforeCommit, CodeTimeout, 20)}, nil},
		{"refusal", only(Refusal), outcome{Kind: ErrRefused, ElapsedMS: 20, Log: logEntry(OutcomeError, "", "", 20)}, ignoreRefusalCode},
		{"unavailable", only(Unavailable), outcome{Kind: ErrUnavailable, Code: CodeUnavailable, ElapsedMS: 20,
			Log: logEntry(OutcomeError, CodeUnavailable, "", 20), Fired: fired(Unavailable, CodeUnavailable, 20)}, nil},
		{"rate limit", only(RateLimit), outcome{Kind: ErrRateLimited, Code: CodeRateLimited, ElapsedMS: 20,
			Log: logEntry(OutcomeError, CodeRateLimited, "", 20), Fired: fired(RateLimit, CodeRateLimited, 20)}, nil},
		{"latency", only(Latency), outcome{Escalations: 1, ElapsedMS: 120,
			Log: logEntry(OutcomeOK, "", "ESC-0001", 120), Fired: fired(Latency, "", 120)}, nil},
		{"timeout after commit", only(TimeoutAfterCommit), outcome{Kind: ErrTimeout, Code: CodeTimeout, Escalations: 1, ElapsedMS: 20,
			Log: logEntry(OutcomeError, CodeTimeout, "ESC-0001", 20), Fired: fired(TimeoutAfterCommit, CodeTimeout, 20)}, nil},
		{"all: timeout before commit is drawn first", allFaults(1), outcome{Kind: ErrTimeout, Code: CodeTimeout, ElapsedMS: 20,
			Log: logEntry(OutcomeError, CodeTimeout, "", 20), Fired: fired(TimeoutBeforeCommit, CodeTimeout, 20)}, nil},
		{"per-tool rate wins over *", FaultRates{"*": {Unavailable: 1}, Escalate: {Unavailable: 0}},
			outcome{Escalations: 1, ElapsedMS: 20, Log: logEntry(OutcomeOK, "", "ESC-0001", 20)}, nil},
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
			m := map[FaultKind]float64{}
			for _, later := range drawnKinds[i:] {
				m[later] = 1
			}
			got, _ := escalateOnce(t, FaultRates{"*": m})
			var kinds []FaultKind
			for _, f := range got.Fired {
				kinds = append(kinds, f.Kind)
			}
			want := []FaultKind{kind}
			if kind == Latency { // slow, then the answer is lost
				want = append(want, TimeoutAfterCommit)
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
		s := New(fixture(), Config{Faults: only(Refusal)}, NewDice(uint64(item)), nil)
		e := mustFail(t, s, "intake", LookupSupplier, "E1", Args{"supplier_id": "S1"}, "", 0)
		if e.Kind != ErrRefused || e.Retryable() {
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
		s := newSandbox(t, only(RateLimit))
		e := mustFail(t, s, "action", GetPurchaseOrder, "E1", Args{"po_number": "PO-100"}, "", attempt)
		if e.Kind != ErrRateLimited || !e.Retryable() {
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
	for _, kind := range []FaultKind{TimeoutBeforeCommit, Refusal, Unavailable, RateLimit} {
		s := newSandbox(t, only(kind))
		mustFail(t, s, "intake", FindInvoice, "E1", Args{"supplier_id": "S1", "number": "A-77"}, "", 0)
		if f := s.Fired(); len(f) != 1 || f[0].Kind != kind {
			t.Errorf("%s on a read: fired %v", kind, f)
		}
	}
	// A read has no commit to lose.
	s := newSandbox(t, only(TimeoutAfterCommit))
	mustCall(t, s, "intake", FindInvoice, "E1", Args{"supplier_id": "S1", "number": "A-77"}, "")
	if f := s.Fired(); len(f) != 0 {
		t.Errorf("timeout after commit fired on a read: %v", f)
	}
}

// attemptWhere returns the first attempt at which a fault of kind on tool
// for item fires (want true) or does not (want false).
func attemptWhere(tb testing.TB, d Dice, p float64, agent, tool, item string, kind FaultKind, want bool) int {
	tb.Helper()
	for a := range 1000 {
		if d.Chance(p, agent, FaultKey(tool, kind), item, a) == want {
			return a
		}
	}
	tb.Fatalf("no attempt with %s fired=%v", kind, want)
	return 0
}

func TestTimeoutAfterCommitThenRetry(t *testing.T) {
	rates := FaultRates{SchedulePayment: {TimeoutAfterCommit: 0.5}}
	d := NewDice(42)
	lost := attemptWhere(t, d, 0.5, "boundary", SchedulePayment, "E1", TimeoutAfterCommit, true)
	heard := attemptWhere(t, d, 0.5, "boundary", SchedulePayment, "E1", TimeoutAfterCommit, false)
	payArgs := func(inv string) Args {
		return Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
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
			s := New(fixture(), Config{Faults: rates}, d, nil)
			inv := approvedInvoice(t, s)
			e := mustFail(t, s, "boundary", SchedulePayment, "E1", payArgs(inv), tc.key, lost)
			if e.Kind != ErrTimeout {
				t.Fatalf("got %v, want a timeout", e)
			}
			if n := len(s.Snapshot().Payments); n != 2 {
				t.Fatalf("%d payments after a timeout after commit, want 2 (the write happened)", n)
			}
			res, err := s.Call("boundary", SchedulePayment, "E1", payArgs(inv), tc.key, heard)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(s.Snapshot().Payments); n != tc.payments {
				t.Errorf("%d payments after the retry, want %d", n, tc.payments)
			}
			if tc.key != "" && res["payment_id"] != "PAY-0004" {
				t.Errorf("retry answered %v, want the first payment PAY-0004", res)
			}
		})
	}
}

func TestFaultRate(t *testing.T) {
	s := New(fixture(), Config{Faults: FaultRates{LookupSupplier: {Unavailable: 0.25}}}, NewDice(7), nil)
	const n = 4000
	failed := 0
	for i := range n {
		if _, err := s.Call("intake", LookupSupplier, "E"+itoa(i), Args{"supplier_id": "S1"}, "", 0); err != nil {
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
	calls := func(s *Sandbox) []string {
		var out []string
		for i := range 40 {
			_, err := s.Call("intake", LookupSupplier, "E"+itoa(i%8), Args{"supplier_id": "S1"}, "", i/8)
			out = append(out, errString(err))
		}
		return out
	}
	a := New(fixture(), Config{Faults: rates}, NewDice(3), nil)
	b := New(fixture(), Config{Faults: rates}, NewDice(3), nil)
	for i := range 25 { // b takes extra calls (an extra retry, other items)
		b.Call("intake", LookupSupplier, "X"+itoa(i), Args{"supplier_id": "S1"}, "", i)
	}
	if diff := cmp.Diff(calls(a), calls(b)); diff != "" {
		t.Errorf("extra calls changed later faults (-a +b):\n%s", diff)
	}
	c := New(fixture(), Config{Faults: rates}, NewDice(4), nil)
	if cmp.Equal(calls(New(fixture(), Config{Faults: rates}, NewDice(3), nil)), calls(c)) {
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

func TestCompileRates(t *testing.T) {
	r := FaultRates{
		"*":             {Unavailable: 0.1, Latency: 0.2, Redelivery: 0.9},
		SchedulePayment: {Unavailable: 0.5, TimeoutAfterCommit: 0.3},
		"transport":     {Redelivery: 0.4},
	}
	got := compileRates(r)
	for ti, tool := range toolNames {
		for k, kind := range drawnKinds {
			if want := r.Rate(tool, kind); got[ti][k] != want {
				t.Errorf("%s %s: compiled %v, Rate says %v", tool, kind, got[ti][k], want)
			}
		}
	}
}
