package triage

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

var updateGolden = flag.Bool("update", false, "rewrite scenarios/golden/*.json from the clean build (then review the diff)")

const goldenUpdateHint = "run go test ./mission/triage -run TestGoldenFiles -update and review the diff"

// TestGoldenFiles checks the stored goldens of the default scenarios: each
// file is exactly what the clean build records now, round-trips, agrees
// with the scenario's authored end state, and is what DefaultScenarios
// attaches. With -update it rewrites the files (and removes stale ones).
func TestGoldenFiles(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	ids := map[string]bool{}
	for _, sc := range scs {
		ids[sc.ID] = true
		t.Run(sc.ID, func(t *testing.T) {
			attached := sc.Golden
			rec, err := m.RecordGolden(sc)
			if err != nil {
				t.Fatalf("the clean build does not reach the authored end state: %v", err)
			}
			f, err := mission.NewGoldenFile(spec(), sc, rec, goldenRecorded)
			if err != nil {
				t.Fatal(err)
			}
			want, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			path := goldenDir + "/" + sc.ID + ".json"
			if diff := gocmp.Diff(rec, mustParseGoldens(t, path, want)); diff != "" {
				t.Fatalf("goldens do not round-trip through the file format (-recorded +reloaded):\n%s", diff)
			}
			if *updateGolden {
				if checkGoldenAgrees(t, sc, rec) {
					writeGoldenIfChanged(t, path, want)
				}
				return
			}
			stored, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (%s)", err, goldenUpdateHint)
			}
			goldens := mustParseGoldens(t, path, stored)
			checkGoldenAgrees(t, sc, goldens)
			if !bytes.Equal(stored, want) {
				t.Errorf("%s differs from what the clean build records now; %s", path, goldenUpdateHint)
			}
			if diff := gocmp.Diff(goldens, attached); diff != "" {
				t.Errorf("DefaultScenarios attached other goldens than %s (-file +attached):\n%s", path, diff)
			}
		})
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if id := strings.TrimSuffix(filepath.Base(p), ".json"); !ids[id] {
			if *updateGolden {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: no default scenario %s; %s", p, id, goldenUpdateHint)
		}
	}
}

func mustParseGoldens(tb testing.TB, name string, data []byte) []mission.Golden {
	tb.Helper()
	f, err := mission.ParseGoldenFile(name, data, spec())
	if err != nil {
		tb.Fatal(err)
	}
	g, err := f.Goldens()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func writeGoldenIfChanged(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func checkGoldenAgrees(tb testing.TB, sc *mission.Scenario, goldens []mission.Golden) bool {
	tb.Helper()
	probs := goldenDisagreements(sc, goldens)
	for _, p := range probs {
		tb.Errorf("golden disagrees with the authored end state: %s", p)
	}
	return len(probs) == 0
}

// goldenDisagreements returns the ways goldens depart from sc's authored
// end state, per expected ticket: the refunds billing's issue_refund calls
// make (each after a get_invoice of the same invoice), the bugs tech
// files, the escalation and closure the supervisor writes with their
// reasons, and the one summary with the expected outcomes and language.
func goldenDisagreements(sc *mission.Scenario, goldens []mission.Golden) []string {
	var out []string
	calls := map[string]map[mission.Agent][]mission.ToolCall{}
	for _, g := range goldens {
		if calls[g.Item] == nil {
			calls[g.Item] = map[mission.Agent][]mission.ToolCall{}
		}
		calls[g.Item][g.Agent] = append(calls[g.Item][g.Agent], g.Calls...)
	}
	for _, w := range sc.Expect.(*Expected).Tickets {
		for _, p := range goldenTicketDisagreements(w, calls[w.Ticket]) {
			out = append(out, w.Ticket+": "+p)
		}
	}
	return out
}

func goldenTicketDisagreements(w ExpectedTicket, calls map[mission.Agent][]mission.ToolCall) []string {
	var out []string
	ok := func(a mission.Agent, tool string) []sandbox.Args {
		var args []sandbox.Args
		for _, c := range calls[a] {
			if c.Name == tool && c.Error == "" {
				args = append(args, c.Args)
			}
		}
		return args
	}
	var refunds []ExpectedRefund
	looked := map[string]bool{}
	for _, c := range calls[Billing] {
		switch {
		case c.Name == GetInvoice:
			looked[str(c.Args, "invoice_id")] = true
		case c.Name == IssueRefund && c.Error == "":
			inv := str(c.Args, "invoice_id")
			if !looked[inv] {
				out = append(out, "refund of "+inv+" without a lookup first")
			}
			amount, _ := sandbox.ToNumber("amount", c.Args["amount"])
			refunds = append(refunds, ExpectedRefund{Invoice: inv, Amount: amount, Currency: str(c.Args, "currency")})
		}
	}
	byRefund := func(a, b ExpectedRefund) int {
		return cmp.Or(cmp.Compare(a.Invoice, b.Invoice), cmp.Compare(cents(a.Amount), cents(b.Amount)), cmp.Compare(a.Currency, b.Currency))
	}
	want := slices.Clone(w.Refunds)
	slices.SortFunc(want, byRefund)
	slices.SortFunc(refunds, byRefund)
	if diff := gocmp.Diff(want, refunds, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "refunds (-expect +golden):\n"+diff)
	}
	if n := len(ok(Tech, OpenBug)); n != b2i(w.Bug) {
		out = append(out, fmt.Sprintf("%d bugs filed, want %d", n, b2i(w.Bug)))
	}
	reasons := func(tool string) []string {
		var r []string
		for _, a := range ok(Supervisor, tool) {
			r = append(r, str(a, "reason"))
		}
		return r
	}
	var wantEsc, wantClose []string
	if w.Escalation != "" {
		wantEsc = []string{w.Escalation}
	}
	if w.Route == RouteNone {
		wantClose = []string{ReasonOutOfScope}
	}
	if diff := gocmp.Diff(wantEsc, reasons(EscalateTicket), cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "escalations (-expect +golden):\n"+diff)
	}
	if diff := gocmp.Diff(wantClose, reasons(CloseTicket), cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "closures (-expect +golden):\n"+diff)
	}
	replies := ok(Supervisor, ReplyToUser)
	switch {
	case w.Route == RouteNone && len(replies) > 0:
		out = append(out, fmt.Sprintf("%d summaries for a ticket closed as out of scope", len(replies)))
	case w.Route != RouteNone && len(replies) != 1:
		out = append(out, fmt.Sprintf("%d summaries, want 1", len(replies)))
	case w.Route != RouteNone:
		r := replies[0]
		got := [3]string{str(r, "billing"), str(r, "tech"), str(r, "language")}
		if want := [3]string{w.Billing, w.Tech, cmp.Or(w.Language, LangEnglish)}; got != want {
			out = append(out, fmt.Sprintf("summary (billing, tech, language) = %q, want %q", got, want))
		}
	}
	return out
}
