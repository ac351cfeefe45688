package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

func TestDefaultProtocol(t *testing.T) {
	p := mustDefaultProtocol(t)
	got := struct {
		Name, Catalogue, Mode, Level, Inputs string
		Designs                              []string
		Trials                               int
		Thresholds                           reports.Thresholds
	}{p.Name, p.Mutants.Catalogue, p.Mutants.Mode, p.Contracts.Level, p.DesignAInputs, p.Designs, p.Trials, p.Thresholds}
	want := struct {
		Name, Catalogue, Mode, Level, Inputs string
		Designs                              []string
		Trials                               int
		Thresholds                           reports.Thresholds
	}{"default", "default", "replace", "semantic", "golden", []string{"A", "A.wire", "A.recorded", "B", "C", "C.schema", "D"}, 20,
		reports.Thresholds{H1MinGap: 0.3, H2MaxDetectionGap: 0.1, H2MinLocalisationGain: 0.2, H2MaxCostRatio: 0.5, H3MinGap: 0,
			H1Design: "A", H2Design: "C", H2Baseline: "B", H3Design: "C", H3Baseline: "B"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("default protocol (-want +got):\n%s", d)
	}
	if p.SHA256 != HashBytes(invoice.Spec().Protocol.Data) {
		t.Errorf("SHA256 = %s, want the hash of the embedded bytes", p.SHA256)
	}
	// Low rates: every slip and fault probability is small, refusals off.
	for a, m := range p.Profile {
		for s, v := range m {
			if v <= 0 || v > 0.01 {
				t.Errorf("profile %s.%s = %v, want a low non-zero rate", a, s, v)
			}
		}
	}
	if r := p.Faults.Rate("lookup_supplier", sandbox.Refusal); r != 0 {
		t.Errorf("refusal rate = %v, want 0", r)
	}
	if r := p.Faults.Rate("transport", sandbox.Redelivery); r <= 0 || r > 0.05 {
		t.Errorf("redelivery rate = %v, want low and non-zero", r)
	}
}

// TestProtocolOverlay: a file's fields lie over the default protocol; a
// map section present in the file replaces the default's whole.
func TestProtocolOverlay(t *testing.T) {
	p, err := ParseProtocol([]byte("name: small\ntrials: 3\nseed: 42\nfaults:\n  transport:\n    redelivery: 0.5\nscenarios:\n  ids: [S1]\n"), "small.yaml", "/proto", testMissions())
	if err != nil {
		t.Fatal(err)
	}
	d := mustDefaultProtocol(t)
	if p.Trials != 3 || p.Seed != 42 || p.Name != "small" {
		t.Errorf("trials, seed, name = %d, %d, %q; want 3, 42, small", p.Trials, p.Seed, p.Name)
	}
	if diff := cmp.Diff(sandbox.FaultRates{"transport": {sandbox.Redelivery: 0.5}}, p.Faults); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Profile, p.Profile); diff != "" {
		t.Errorf("profile should be the default's (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Thresholds, p.Thresholds); diff != "" {
		t.Errorf("thresholds should be the default's (-want +got):\n%s", diff)
	}
	if got := p.Path("extra/s.yaml"); got != filepath.Join("/proto", "extra/s.yaml") {
		t.Errorf("Path = %q, want it under the protocol's folder", got)
	}
	if got := p.Path("/abs/s.yaml"); got != "/abs/s.yaml" {
		t.Errorf("Path(abs) = %q", got)
	}
	// The default protocol is not changed by overlaying.
	if d.Trials != 20 || len(d.Faults["*"]) == 0 {
		t.Errorf("default protocol changed by an overlay: trials %d, faults %v", d.Trials, d.Faults)
	}
}

func TestProtocolBadInput(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", "name: x\nfoo: 1\n", "p.yaml:2:1: foo: unknown field (want one of name, mission, scenarios, mutants, contracts, designs, design_a_inputs, trials, seed, profile, faults, review_sample, cost_weights, thresholds, cores, model_cache, matched)"},
		{"unknown nested key", "mission:\n  name: invoice\n  flavour: x\n", "p.yaml:3:3: mission.flavour: unknown field (want one of name, version)"},
		{"unknown threshold", "thresholds:\n  h4_min_gap: 0.1\n", "p.yaml:2:3: thresholds.h4_min_gap: unknown field (want one of h1_min_gap, h2_max_detection_gap, h2_min_localisation_gain, h2_max_cost_ratio, h3_min_gap, h1_design, h2_design, h2_baseline, h3_design, h3_baseline)"},
		{"trials wrong type", "trials: many\n", `p.yaml:1:9: trials: want an integer, got string "many"`},
		{"trials zero", "trials: 0\n", "p.yaml:1:9: trials: 0: want at least 1"},
		{"trials float", "trials: 2.5\n", "p.yaml:1:9: trials: want an integer, got number 2.5"},
		{"seed negative", "seed: -1\n", "p.yaml:1:7: seed: -1: want an integer from 0 to 18446744073709551615"},
		{"unknown design", "designs: [A, E]\n", `p.yaml:1:14: designs[1]: design "E": unknown design "E" (known: A, B, C, D)`},
		{"bad variant", "designs: [A.semantic]\n", `p.yaml:1:11: designs[0]: design "A.semantic": "semantic" is no value of A's parameters (scorecard: result, wire; inputs: golden, recorded)`},
		{"unknown hypothesis design", "thresholds:\n  h2_design: Q\n", `p.yaml:2:14: thresholds.h2_design: design "Q": unknown design "Q" (known: A, B, C, D)`},
		{"design twice", "designs:\n  - A\n  - A\n", `p.yaml:3:5: designs[1]: "A" listed twice`},
		{"no designs", "designs: []\n", "p.yaml:1:10: designs: empty: want at least one of A, B, C, D (or a variant, such as A.wire)"},
		{"designs not a list", "designs: A\n", `p.yaml:1:10: designs: want a list, got string "A"`},
		{"unknown class", "mutants:\n  classes: [context_loss, typo]\n", `p.yaml:2:27: mutants.classes[1]: unknown class "typo" (want one of context_loss, ambiguous_ownership, duplicate_action, escalation_gap, contract_drift, control)`},
		{"bad catalogue mode", "mutants:\n  mode: merge\n", `p.yaml:2:9: mutants.mode: unknown mode "merge" (want one of replace, extend)`},
		{"extend the default", "mutants:\n  mode: extend\n", "p.yaml:2:9: mutants.mode: extend needs a catalogue file to add to the default catalogue"},
		{"bad level", "contracts:\n  level: strict\n", `p.yaml:2:10: contracts.level: unknown level "strict" (want one of schema, ownership, semantic)`},
		{"bad inputs", "design_a_inputs: live\n", `p.yaml:1:18: design_a_inputs: unknown input source "live" (want one of golden, recorded)`},
		{"unknown agent", "profile:\n  auditor:\n    misread: 0.1\n", `p.yaml:2:3: profile.auditor: unknown agent "auditor" (want one of intake, action, boundary, monitor)`},
		{"unknown slip", "profile:\n  intake:\n    daydream: 0.1\n", `p.yaml:3:5: profile.intake.daydream: unknown slip "daydream" (want one of misclassify, misread, misroute)`},
		{"slip of another agent", "profile:\n  monitor:\n    misread: 0.1\n", `p.yaml:3:14: profile.monitor.misread: unknown slip "misread": monitor makes no slips`},
		{"other mission", "mission:\n  name: triage\n", `p.yaml:2:9: mission.name: unknown mission "triage" (this baton runs invoice)`},
		{"slip above 1", "profile:\n  intake:\n    misread: 1.5\n", "p.yaml:3:14: profile.intake.misread: 1.5: want a probability in [0, 1]"},
		{"slip not a number", "profile:\n  intake:\n    misread: often\n", `p.yaml:3:14: profile.intake.misread: want a number, got string "often"`},
		{"fault below 0", "faults:\n  \"*\":\n    latency: -0.1\n", "p.yaml:3:14: faults.*.latency: -0.1: want a probability in [0, 1]"},
		{"unknown fault kind", "faults:\n  lookup_supplier:\n    meteor: 0.1\n", `p.yaml:3:5: faults.lookup_supplier.meteor: unknown fault kind "meteor" (want one of timeout_before_commit, timeout_after_commit, refusal, unavailable, rate_limit, latency, redelivery)`},
		{"unknown tool", "faults:\n  teleport:\n    latency: 0.1\n", `p.yaml:2:3: faults.teleport: unknown tool "teleport" (want one of *, transport, lookup_supplier, find_invoice, register_invoice, get_purchase_order, get_goods_receipts, record_match, approve_invoice, post_ledger, schedule_payment, escalate, reject_invoice, close_item, publish_exception_report)`},
		{"transport latency", "faults:\n  transport:\n    latency: 0.1\n", "p.yaml:3:14: faults.transport.latency: transport has only redelivery"},
		{"tool redelivery", "faults:\n  escalate:\n    redelivery: 0.1\n", "p.yaml:3:17: faults.escalate.redelivery: redelivery applies to the transport only (faults.transport.redelivery)"},
		{"faults not a mapping", "faults: [0.1]\n", "p.yaml:1:9: faults: want a mapping, got a list"},
		{"threshold above 1", "thresholds:\n  h1_min_gap: 2\n", "p.yaml:2:15: thresholds.h1_min_gap: 2: want a probability in [0, 1]"},
		{"cost ratio zero", "thresholds:\n  h2_max_cost_ratio: 0\n", "p.yaml:2:22: thresholds.h2_max_cost_ratio: 0: want a ratio above 0"},
		{"negative cost weight", "cost_weights:\n  per_tool_call: -1\n", "p.yaml:2:18: cost_weights.per_tool_call: -1: want 0 or more"},
		{"negative review sample", "review_sample: -1\n", "p.yaml:1:16: review_sample: -1: want 0 or more"},
		{"bad name", "name: ../evil\n", `p.yaml:1:7: name: "../evil": want letters, digits, '-', '_' or '.' (it names the run folder)`},
		{"name a boolean", "name: true\n", "p.yaml:1:7: name: want a string, got boolean true"},
		{"duplicate key", "trials: 2\ntrials: 3\n", "p.yaml:2:1: trials: duplicate key (first at line 1)"},
		{"top level a list", "- a\n- b\n", "p.yaml:1:1: (top level): want a mapping, got a list"},
		{"empty", "", "p.yaml:1: empty protocol"},
		{"two documents", "name: a\n---\nname: b\n", "p.yaml:2: more than one YAML document (want one per file)"},
		{"invalid YAML", "name: [a\n", "p.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		// Accepted silently or unlocated before (issue 23, items 3, 9, 10, 11).
		{"document ~", "~\n", "p.yaml:1:1: (top level): want a mapping, got null"},
		{"document null", "null\n", "p.yaml:1:1: (top level): want a mapping, got null"},
		{"slip .nan", "profile:\n  intake:\n    misread: .nan\n", "p.yaml:3:14: profile.intake.misread: want a finite number, got .nan"},
		{"fault .NaN", "faults:\n  \"*\":\n    latency: .NaN\n", "p.yaml:3:14: faults.*.latency: want a finite number, got .NaN"},
		{"threshold .inf", "thresholds:\n  h2_max_cost_ratio: .inf\n", "p.yaml:2:22: thresholds.h2_max_cost_ratio: want a finite number, got .inf"},
		{"cost weight -.Inf", "cost_weights:\n  per_tool_call: -.Inf\n", "p.yaml:2:18: cost_weights.per_tool_call: want a finite number, got -.Inf"},
		{"binary", "name: a\x00b\n", "p.yaml:1:8: control character U+0000: not allowed in YAML (is it a text file?)"},
		{"invalid UTF-8", "name: a\xfeb\n", "p.yaml:1:8: invalid UTF-8 (byte 0xfe): not a text file"},
		{"too large", "name: a\n" + strings.Repeat("#", MaxProtocolBytes), "p.yaml: 1048584 bytes: larger than the 1 MiB a protocol may be"},
		{"long value not echoed", "name: " + strings.Repeat("x", 10000) + "/\n", `p.yaml:1:7: name: "` + strings.Repeat("x", 64) + `"… (10001 bytes): want letters, digits, '-', '_' or '.' (it names the run folder)`},
		{"missing name", "name: \"\"\n", `p.yaml:1:7: name: "": want letters, digits, '-', '_' or '.' (it names the run folder)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProtocol([]byte(tt.yaml), "p.yaml", "", testMissions())
			if err == nil {
				t.Fatalf("ParseProtocol(%q) = nil error, want %q", tt.yaml, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ParseProtocol(%q):\n got %s\nwant %s", tt.yaml, got, tt.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an *InputError", err)
			}
		})
	}
}

// TestProtocolManyErrors: every problem is reported, not only the first.
func TestProtocolManyErrors(t *testing.T) {
	_, err := ParseProtocol([]byte("trials: 0\nfoo: 1\ndesigns: [Z]\n"), "p.yaml", "", testMissions())
	if err == nil {
		t.Fatal("want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{"p.yaml:1:9: trials: 0: want at least 1", "p.yaml:2:1: foo: unknown field (want one of name, mission, scenarios, mutants, contracts, designs, design_a_inputs, trials, seed, profile, faults, review_sample, cost_weights, thresholds, cores, model_cache, matched)", `p.yaml:3:11: designs[0]: design "Z": unknown design "Z" (known: A, B, C, D)`}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestProtocolErrorFlood: a protocol of many unknown keys reports a few
// dozen problems and counts the rest (issue 23 item 11: 317 MB of stderr
// before).
func TestProtocolErrorFlood(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < MaxProtocolBytes-64; i++ {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	_, err := ParseProtocol([]byte(b.String()), "p.yaml", "", testMissions())
	if err == nil {
		t.Fatal("want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != input.DefaultMaxErrors+1 || !strings.HasPrefix(lines[len(lines)-1], "… and ") {
		t.Errorf("%d lines, last %q; want %d and a count", len(lines), lines[len(lines)-1], input.DefaultMaxErrors+1)
	}
	if len(err.Error()) > 64<<10 {
		t.Errorf("error of %d bytes", len(err.Error()))
	}
}

// TestProtocolResolveErrors: problems found against the mission and its
// scenarios, catalogue and designs still name the protocol's line.
func TestProtocolResolveErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown scenario", "scenarios:\n  ids: [S1, S9]\n", `p.yaml:2:13: scenarios.ids[1]: unknown scenario "S9"`},
		{"unknown include tag", "scenarios:\n  include_tags:\n    - currency:JPY\n", `p.yaml:3:7: scenarios.include_tags[0]: unknown tag "currency:JPY": no scenario carries it`},
		{"unknown exclude tag", "scenarios:\n  exclude_tags: [nope]\n", `p.yaml:2:18: scenarios.exclude_tags[0]: unknown tag "nope": no scenario carries it`},
		{"selects nothing", "scenarios:\n  include_tags: [currency:USD]\n  exclude_tags: [category:variation]\n", "p.yaml:1:1: scenarios: selects no scenario"},
		{"unknown mutant", "mutants:\n  ids: [cl-currency, nope]\n", `p.yaml:2:22: mutants.ids[1]: unknown mutant "nope"`},
		{"other version", "mission:\n  version: 0.9\n", `p.yaml:2:12: mission.version: "0.9": this baton runs invoice version "1.0.0"`},
		{"catalogue fails to load", "mutants:\n  catalogue: mine.yaml\n", "p.yaml:2:14: mutants.catalogue: load: /proto/mine.yaml:1: mutants: fake stack has the default catalogue only"},
		{"scenario file fails to load", "scenarios:\n  files: [more.yaml]\n", "p.yaml:2:10: scenarios.files: load: fake: no scenario files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProtocol([]byte(tt.yaml), "p.yaml", "/proto", testMissions())
			if err != nil {
				t.Fatalf("ParseProtocol: %v", err)
			}
			_, err = resolve(p, fakeStack(), p.Path)
			if err == nil {
				t.Fatalf("resolve = nil error, want %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("resolve:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestProtocolSelection checks the selection semantics: union of ids and
// included tags, minus excluded tags, in id order.
func TestProtocolSelection(t *testing.T) {
	p, err := ParseProtocol([]byte("designs: [A, B, C]\nscenarios:\n  ids: [S3]\n  include_tags: [currency:USD]\nmutants:\n  classes: [control]\n"), "p.yaml", "", testMissions())
	if err != nil {
		t.Fatal(err)
	}
	pl, err := resolve(p, fakeStack(), p.Path)
	if err != nil {
		t.Fatal(err)
	}
	var ids, builds []string
	for _, sc := range pl.scenarios {
		ids = append(ids, sc.ID)
	}
	for _, b := range pl.builds {
		builds = append(builds, b.Info.ID)
	}
	if d := cmp.Diff([]string{"S2", "S3"}, ids); d != "" {
		t.Errorf("scenarios (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"clean", "ctl-amount"}, builds); d != "" {
		t.Errorf("builds (-want +got):\n%s", d)
	}
}

func TestItemIDRoundTrip(t *testing.T) {
	for _, tt := range []struct{ build, design, scenario string }{{"clean", "", "S01"}, {"cl-x", "C", "S-2"}} {
		id := ItemID(tt.build, tt.design, tt.scenario, 7)
		b, d, s, tr, err := ParseItemID(id)
		if err != nil || b != tt.build || d != tt.design || s != tt.scenario || tr != 7 {
			t.Errorf("ParseItemID(%q) = %q, %q, %q, %d, %v", id, b, d, s, tr, err)
		}
	}
	for _, bad := range []string{"", "a/b/c", "a/b/c/0", "a/b/c/01", "a//c/1", "a/b/c/x"} {
		if _, _, _, _, err := ParseItemID(bad); err == nil {
			t.Errorf("ParseItemID(%q) = nil error", bad)
		}
	}
	seeds := map[uint64]string{}
	for _, sc := range []string{"S01", "S02"} {
		for trial := 1; trial <= 3; trial++ {
			s := TrialSeed(7, sc, trial)
			if prev, dup := seeds[s]; dup {
				t.Errorf("TrialSeed(7, %s, %d) repeats %s's", sc, trial, prev)
			}
			seeds[s] = sc + "/" + strconv.Itoa(trial)
			if s != sandbox.HashSeed(7, sc, strconv.Itoa(trial)) {
				t.Errorf("TrialSeed(7, %s, %d) is not HashSeed(master, scenario, trial)", sc, trial)
			}
		}
	}
}

var errLine = regexp.MustCompile(`^(fuzz\.yaml(:\d+(:\d+)?)?: |… and \d+ more problems?$)`)

func FuzzLoadProtocol(f *testing.F) {
	f.Add(invoice.Spec().Protocol.Data)
	f.Add([]byte("name: x\ntrials: 2\nfoo: 1\n"))
	f.Add([]byte("profile:\n  intake: &a\n    misread: 0.1\n  action: *a\n"))
	f.Add([]byte("faults: {\"*\": {latency: 2}}\n"))
	f.Add([]byte("designs: [A, B, B, Q]\nseed: 0x10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProtocol(data, "fuzz.yaml", "", testMissions())
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !errLine.MatchString(line) {
					t.Fatalf("error line %q does not start with file:line", line)
				}
			}
			return
		}
		if p.Trials < 1 || len(p.Designs) == 0 || p.Name == "" {
			t.Fatalf("accepted protocol with trials %d, designs %v, name %q", p.Trials, p.Designs, p.Name)
		}
		for _, m := range p.Profile {
			for _, v := range m {
				if v < 0 || v > 1 {
					t.Fatalf("accepted slip rate %v", v)
				}
			}
		}
		for _, m := range p.Faults {
			for _, v := range m {
				if v < 0 || v > 1 {
					t.Fatalf("accepted fault rate %v", v)
				}
			}
		}
	})
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}
