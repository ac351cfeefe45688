package invoice

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

func TestSpec(t *testing.T) {
	s := New().Spec()
	if s.Name != "invoice" || s.Version == "" {
		t.Errorf("New() = %s %s", s.Name, s.Version)
	}
	if diff := cmp.Diff([]mission.Agent{Intake, Action, Boundary, Monitor}, s.AgentNames()); diff != "" {
		t.Errorf("Agents (-want +got):\n%s", diff)
	}
	wantKinds := map[mission.Edge]string{
		IntakeToAction: KindInvoiceExtracted, ActionToBoundary: KindMatchPrepared, BoundaryToMonitor: KindDecisionMade,
		IntakeToMonitor: KindExceptionRaised, ActionToMonitor: KindExceptionRaised,
	}
	for _, e := range s.EdgeList() {
		if s.Kind(e) != wantKinds[e] {
			t.Errorf("Kind(%s) = %q, want %q", e, s.Kind(e), wantKinds[e])
		}
	}
	// Who writes which record follows from the tools.
	for kind, want := range map[string]mission.Agent{"invoice": Intake, "match": Action, "payment": Boundary, "report": Monitor, "item": ""} {
		if got := s.Writer(kind); got != want {
			t.Errorf("Writer(%s) = %q, want %q", kind, got, want)
		}
	}
	// Every agent's result schema accepts what its clean core returns.
	for _, sc := range testScenarios(t) {
		goldens, err := recordGolden(New(), sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range goldens {
			as, _ := s.Agent(g.Agent)
			if e := as.Result.Check(g.Result); e != nil {
				t.Errorf("%s %s %s: result fails its schema: %v", sc.ID, g.Agent, g.Item, e)
			}
		}
	}
}

// TestRunCleanEndState: with zero slips and faults the clean build ends
// every scenario, inline and default, in its authored end state.
func TestRunCleanEndState(t *testing.T) {
	scs := testScenarios(t)
	defaults, _, err := DefaultScenarios()
	if err != nil {
		t.Fatalf("DefaultScenarios: %v", err)
	}
	scs = append(scs, defaults...)
	for _, sc := range scs {
		t.Run(sc.ID, func(t *testing.T) {
			run := mustRun(New(), mission.Clean(), sc, 1, mission.Env{})
			if diffs := Check(expectOf(sc), run.End); len(diffs) > 0 {
				t.Errorf("end state differs from expected:\n%s", describeDiffs(diffs))
			}
			if n := len(recs(run.End).Reports); n != 1 {
				t.Errorf("%d exception reports, want 1", n)
			}
			if run.Cost.ModelCalls == 0 || run.Cost.ToolCalls == 0 || run.Cost.Tokens == 0 || run.Cost.EnvironmentResets != 1 || run.Cost.FixtureResets != 0 {
				t.Errorf("cost %+v: want model calls, tool calls, tokens and one sandbox reset", run.Cost)
			}
		})
	}
}

func describeDiffs(diffs []sandbox.Difference) string {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "  %s.%s: want %q, got %q\n", d.Record, d.Field, d.Want, d.Got)
	}
	return b.String()
}

// TestRunDeterministic: the same seed gives a byte-identical trace and end
// state; another seed, with faults firing, a different trace.
func TestRunDeterministic(t *testing.T) {
	sc := scenarioByID(t, "T2")
	env := mission.Env{
		Faults:  scaled(protocolFaults, 5),
		Profile: mission.Profile{Intake: {Misread: 0.1, Misclassify: 0.1}, Boundary: {SkipLookup: 0.1}},
	}
	run := func(seed uint64) (string, string, *mission.Oracle) {
		o := &mission.Oracle{}
		r := mustRun(New(), mission.Clean().WithOracle(o), sc, seed, env)
		end, err := jsonMarshal(r.End)
		if err != nil {
			t.Fatal(err)
		}
		return jsonl(t, r.Trace), end, o
	}
	a1, e1, o1 := run(42)
	a2, e2, _ := run(42)
	if a1 != a2 {
		t.Errorf("same seed, different traces:\n%s", cmp.Diff(a1, a2))
	}
	if e1 != e2 {
		t.Errorf("same seed, different end states:\n%s", cmp.Diff(e1, e2))
	}
	if len(o1.Faults) == 0 {
		t.Fatal("no fault fired at seed 42: raise the rates so the test means something")
	}
	b, _, ob := run(43)
	if len(ob.Faults) == 0 {
		t.Fatal("no fault fired at seed 43")
	}
	if a1 == b {
		t.Error("seeds 42 and 43 gave the same trace although faults fired")
	}
}

// TestKeyedRandomness: a build whose control flow diverges on one item
// (it escalates E1 instead of paying it, and the escalation is retried
// under faults) still draws the same slips and faults as the clean build
// at every decision the two share: on every other item, and on E1 before
// the divergence.
func TestKeyedRandomness(t *testing.T) {
	sc := scenarioByID(t, "T2")
	faults := scaled(protocolFaults, 5)
	faults[Escalate] = map[sandbox.FaultKind]float64{sandbox.Unavailable: 0.6}
	env := mission.Env{Faults: faults, Profile: mission.Profile{Intake: {Misread: 0.2, mission.Misroute: 0.05}, Boundary: {SkipLookup: 0.2}}}
	diverge := hook{decide: func(a mission.Agent, kind, item, choice string) string {
		if a == Boundary && kind == "decision" && item == "E1" {
			return DecisionEscalated
		}
		return choice
	}}
	for seed := uint64(1); seed <= 200; seed++ {
		clean, other := &mission.Oracle{}, &mission.Oracle{}
		mustRun(New(), mission.Clean().WithOracle(clean), sc, seed, env)
		mustRun(New(), mission.NewBuild(diverge, other), sc, seed, env)
		retried := false
		for _, f := range other.Faults {
			if f.Item == "E1" && f.Tool == Escalate {
				retried = true
			}
		}
		if !retried {
			continue // look for a seed where the diverging build takes extra retries
		}
		for _, item := range []string{"E2", "E3", "E4"} {
			if diff := cmp.Diff(faultsOf(clean, item, nil), faultsOf(other, item, nil)); diff != "" {
				t.Errorf("seed %d: faults on %s differ (-clean +diverging):\n%s", seed, item, diff)
			}
			if diff := cmp.Diff(slipsOf(clean, item), slipsOf(other, item)); diff != "" {
				t.Errorf("seed %d: slips on %s differ (-clean +diverging):\n%s", seed, item, diff)
			}
		}
		before := func(f sandbox.Fired) bool { return f.Agent != string(Boundary) }
		if diff := cmp.Diff(faultsOf(clean, "E1", before), faultsOf(other, "E1", before)); diff != "" {
			t.Errorf("seed %d: E1's faults upstream of boundary differ (-clean +diverging):\n%s", seed, diff)
		}
		return
	}
	t.Fatal("no seed in 1..200 made the diverging build retry its escalation")
}

// faultsOf returns an oracle's faults on item (without virtual times, which
// legitimately shift after a divergence), filtered by keep.
func faultsOf(o *mission.Oracle, item string, keep func(sandbox.Fired) bool) []sandbox.Fired {
	var out []sandbox.Fired
	for _, f := range o.Faults {
		if f.Item == item && (keep == nil || keep(f)) {
			f.At = 0
			out = append(out, f)
		}
	}
	return out
}

func slipsOf(o *mission.Oracle, item string) []mission.SlipEvent {
	var out []mission.SlipEvent
	for _, s := range o.Slips {
		if s.Item == item {
			out = append(out, s)
		}
	}
	return out
}

// TestDefaultFaultsAccepted: with the default protocol's fault rates and
// zero slips, the clean build's end state is accepted in at least 99% of
// 1000 seeded trials across the suite.
func TestDefaultFaultsAccepted(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	scs = append(testScenarios(t), scs...)
	const trials = 1000
	accepted, fired := 0, 0
	var failures []string
	for i := 0; i < trials; i++ {
		sc := scs[i%len(scs)]
		seed := sandbox.HashSeed(7, sc.ID, fmt.Sprint(i))
		o := &mission.Oracle{}
		run := mustRun(New(), mission.Clean().WithOracle(o), sc, seed, mission.Env{Faults: protocolFaults})
		if len(o.Faults)+len(o.Redeliveries) > 0 {
			fired++
		}
		if diffs := Check(expectOf(sc), run.End); len(diffs) == 0 {
			accepted++
		} else if len(failures) < 5 {
			failures = append(failures, fmt.Sprintf("%s seed %d:\n%s", sc.ID, seed, describeDiffs(diffs)))
		}
	}
	rate := float64(accepted) / trials
	t.Logf("default faults, zero slips: %d/%d trials accepted (%.1f%%); faults or redeliveries fired in %d", accepted, trials, 100*rate, fired)
	if rate < 0.99 {
		t.Errorf("accepted %.3f < 0.99; first failures:\n%s", rate, strings.Join(failures, "\n"))
	}
	if fired < trials/4 {
		t.Errorf("faults fired in only %d trials: the test exercises too little", fired)
	}
}

// TestRetries: each fault kind, forced on one tool, takes the documented
// path: back-off on the virtual clock, the same key on every attempt, and
// when a call fails for good, an exception and an escalation.
func TestRetries(t *testing.T) {
	sc := scenarioByID(t, "T1")
	tests := []struct {
		name     string
		tool     string
		kind     sandbox.FaultKind
		attempts int
		// gaps between attempts beyond the call latency, at least
		minGaps []time.Duration
		reason  string // boundary's escalation reason; "" when paid
		entry   ReportEntry
	}{
		{
			name: "unavailable exhausts retries", tool: GetPurchaseOrder, kind: sandbox.Unavailable, attempts: 4,
			minGaps: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond},
			reason:  ReasonSystemUnavailable, entry: ReportEntry{Item: "E1", Kind: ExceptionToolFailure, Reason: sandbox.CodeUnavailable},
		},
		{
			name: "rate limit honours retry-after", tool: ApproveInvoice, kind: sandbox.RateLimit, attempts: 4,
			minGaps: []time.Duration{time.Second, time.Second, time.Second},
			reason:  ReasonSystemUnavailable,
		},
		{
			name: "timeout after commit is retried with the same key", tool: RegisterInvoice, kind: sandbox.TimeoutAfterCommit, attempts: 4,
			minGaps: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond},
			reason:  ReasonSystemUnavailable, entry: ReportEntry{Item: "E1", Kind: ExceptionToolFailure, Reason: sandbox.CodeTimeout},
		},
		{
			name: "refusal is not retried", tool: SchedulePayment, kind: sandbox.Refusal, attempts: 1,
			reason: ReasonToolRefused,
		},
		{
			name: "latency slows but succeeds", tool: LookupSupplier, kind: sandbox.Latency, attempts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := mission.Env{Faults: sandbox.FaultRates{tt.tool: {tt.kind: 1}}}
			run := mustRun(New(), mission.Clean(), sc, 3, env)
			var calls []mission.Event
			for _, e := range run.Trace.Of(mission.EventToolCall) {
				if e.Tool == tt.tool && e.Item == "E1" {
					calls = append(calls, e)
				}
			}
			// Boundary also looks suppliers up; keep the first logical call.
			if len(calls) > tt.attempts {
				calls = calls[:tt.attempts]
			}
			if len(calls) != tt.attempts {
				t.Fatalf("%d attempts of %s, want %d", len(calls), tt.tool, tt.attempts)
			}
			for i, c := range calls {
				if c.Attempt != i {
					t.Errorf("attempt %d recorded as %d", i, c.Attempt)
				}
				if spec().Tools.RecordOf(tt.tool) != "" && c.Key != "E1:"+tt.tool {
					t.Errorf("attempt %d key %q, want %q", i, c.Key, "E1:"+tt.tool)
				}
				if i > 0 && i-1 < len(tt.minGaps) {
					if gap := time.Duration(c.At-calls[i-1].At) * time.Millisecond; gap < tt.minGaps[i-1] {
						t.Errorf("gap before attempt %d = %v, want >= %v", i, gap, tt.minGaps[i-1])
					}
				}
			}
			esc := recs(run.End).Escalations
			switch {
			case tt.reason == "" && len(recs(run.End).Payments) != 1:
				t.Errorf("payments %v, want one", recs(run.End).Payments)
			case tt.reason != "" && (len(esc) != 1 || esc[0].Reason != tt.reason):
				t.Errorf("escalations %+v, want one with reason %s", esc, tt.reason)
			}
			if tt.entry != (ReportEntry{}) && !slices.Contains(recs(run.End).Reports[0].Entries, tt.entry) {
				t.Errorf("report %+v lacks %+v", recs(run.End).Reports[0].Entries, tt.entry)
			}
			if diffs := Check(expectOf(sc), run.End); len(diffs) > 0 {
				t.Errorf("end state not accepted:\n%s", describeDiffs(diffs))
			}
			if tt.tool == RegisterInvoice && len(recs(run.End).Invoices) != 1 {
				t.Errorf("%d invoices registered, want 1 (same key on every retry)", len(recs(run.End).Invoices))
			}
		})
	}
}

// TestSlips: each slip, made certain, fires, is recorded in the oracle and
// changes what the agent does.
func TestSlips(t *testing.T) {
	sc := scenarioByID(t, "T1")
	tests := []struct {
		agent mission.Agent
		slip  mission.Slip
		check func(t *testing.T, run *mission.Run)
	}{
		{Intake, Misclassify, func(t *testing.T, run *mission.Run) {
			if c := firstChoice(run.Trace, Intake, "classify"); c == DocInvoice {
				t.Errorf("classify chose %q despite the slip", c)
			}
		}},
		{Intake, Misread, func(t *testing.T, run *mission.Run) {
			inv := recs(run.End).Invoices[0]
			if inv.Currency == "EUR" && cents(inv.Gross) == cents(docOf(sc.Inputs[0]).Gross) {
				t.Errorf("registered %s %.2f: nothing misread", inv.Currency, inv.Gross)
			}
		}},
		{Boundary, SkipLookup, func(t *testing.T, run *mission.Run) {
			for _, e := range run.Trace.Of(mission.EventToolCall) {
				if e.Agent == Boundary && e.Tool == LookupSupplier {
					t.Error("boundary looked the supplier up despite the slip")
				}
			}
		}},
		{Action, mission.Misroute, func(t *testing.T, run *mission.Run) {
			for _, e := range run.Trace.Of(mission.EventSent) {
				if e.Edge == ActionToBoundary.String() && slices.Equal(e.To, []mission.Agent{Boundary}) {
					t.Error("action routed to boundary despite the slip")
				}
			}
			if len(recs(run.End).Payments) != 0 {
				t.Error("a misrouted item was paid")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+"/"+string(tt.slip), func(t *testing.T) {
			o := &mission.Oracle{}
			run := mustRun(New(), mission.Clean().WithOracle(o), sc, 5, mission.Env{Profile: mission.Profile{tt.agent: {tt.slip: 1}}})
			if len(o.Slips) == 0 || o.Slips[0].Slip != tt.slip || o.Slips[0].Agent != tt.agent {
				t.Fatalf("oracle slips %+v, want %s by %s", o.Slips, tt.slip, tt.agent)
			}
			tt.check(t, run)
		})
	}
}

func firstChoice(tr *mission.Trace, agent mission.Agent, decision string) string {
	for _, e := range tr.Of(mission.EventModelCall) {
		if e.Agent == agent && e.Decision == decision {
			return e.Choice
		}
	}
	return ""
}

// TestTransportRedelivery: a redelivered message is dropped as a duplicate
// by the clean transport, and processed twice without de-duplication.
func TestTransportRedelivery(t *testing.T) {
	sc := scenarioByID(t, "T2")
	env := mission.Env{Faults: sandbox.FaultRates{"transport": {sandbox.Redelivery: 1}}}
	o := &mission.Oracle{}
	run := mustRun(New(), mission.Clean().WithOracle(o), sc, 1, env)
	if len(o.Redeliveries) == 0 {
		t.Fatal("no redelivery recorded")
	}
	dups := 0
	for _, e := range run.Trace.Of(mission.EventDropped) {
		if e.Reason == "duplicate" {
			dups++
		}
	}
	if dups != len(o.Redeliveries) {
		t.Errorf("%d duplicates dropped, %d redeliveries", dups, len(o.Redeliveries))
	}
	if diffs := Check(expectOf(sc), run.End); len(diffs) > 0 {
		t.Errorf("clean transport under redelivery:\n%s", describeDiffs(diffs))
	}

	noDedup := mission.NewBuild(hook{dedup: func(e mission.Edge) bool { return e != BoundaryToMonitor }}, nil)
	run = mustRun(New(), noDedup, sc, 1, env)
	if diffs := Check(expectOf(sc), run.End); len(diffs) == 0 {
		t.Error("without de-duplication on boundary->monitor the report should list entries twice")
	}
}

// TestConcurrentRuns: one mission value serves concurrent runs and core
// runs (run with -race), each giving what it gives alone.
func TestConcurrentRuns(t *testing.T) {
	m := New()
	sc := scenarioByID(t, "T2")
	goldens, err := recordGolden(m, sc)
	if err != nil {
		t.Fatal(err)
	}
	env := mission.Env{Faults: scaled(protocolFaults, 3)}
	want := jsonl(t, mustRun(m, mission.Clean(), sc, 11, env).Trace)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				if got := jsonl(t, mustRun(m, mission.Clean(), sc, 11, env).Trace); got != want {
					errs <- "concurrent run differs"
					return
				}
				for _, g := range goldens {
					mustRunCore(m, mission.Clean(), g.Agent, sc, g.Input, uint64(i), env)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
