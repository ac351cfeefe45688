package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/sandbox"
)

// A toy mission of two agents, defined here and nowhere else: a desk reads
// each request, looks its account up and hands it to a clerk, who files an
// entry. It runs through designs A, B and C and a whole sweep without a
// line of the kernel knowing it exists.

const (
	desk  mission.Agent = "desk"
	clerk mission.Agent = "clerk"
)

// toyRecords is the toy's system of record.
type toyRecords struct {
	Accounts []toyAccount `json:"accounts"`
	Entries  []toyEntry   `json:"entries"`
}

type toyAccount struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

type toyEntry struct {
	ID       string  `json:"id"`
	Request  string  `json:"request"`
	Account  string  `json:"account"`
	Amount   float64 `json:"amount"`
	Category string  `json:"category"`
}

func (r *toyRecords) CopyFrom(src sandbox.Records) {
	s := src.(*toyRecords)
	r.Accounts = sandbox.CloneInto(r.Accounts, s.Accounts)
	r.Entries = sandbox.CloneInto(r.Entries, s.Entries)
}

func (r *toyRecords) Clone() sandbox.Records {
	return &toyRecords{Accounts: slices.Clone(r.Accounts), Entries: slices.Clone(r.Entries)}
}

func (r *toyRecords) Reset() {
	r.Accounts, r.Entries = sandbox.Emptied(r.Accounts), sandbox.Emptied(r.Entries)
}

func (r *toyRecords) Sort() {
	slices.SortStableFunc(r.Entries, func(a, b toyEntry) int { return compare(a.ID, b.ID) })
}

func (r *toyRecords) IDs(fn func(int, string)) {
	for _, e := range r.Entries {
		fn(0, e.ID)
	}
}

func (r *toyRecords) AppendJSON(b []byte) ([]byte, error) {
	j, err := json.Marshal(r)
	return append(b, j...), err
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// toyRequest is what a request carries besides its text.
type toyRequest struct {
	Amount   float64 `json:"amount"`
	Category string  `json:"category"`
}

func (r *toyRequest) CloneAttachment() mission.Attachment { c := *r; return &c }

// toyExpected is what each request should leave: an entry of this amount
// and category.
type toyExpected struct {
	Entries map[string]toyRequest `json:"entries"`
}

func (x *toyExpected) CloneExpectation() mission.Expectation {
	c := &toyExpected{Entries: map[string]toyRequest{}}
	for k, v := range x.Entries {
		c.Entries[k] = v
	}
	return c
}

func toyRegistry() *sandbox.Registry {
	str := sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true}
	reg, err := sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return new(toyRecords) },
		Kinds:   []sandbox.RecordKind{{Name: "entry", Prefix: "ENT"}},
		Tools: []sandbox.Tool{
			{Name: "get_account", Agents: []string{string(desk)}, Description: "find the account of an e-mail address",
				Args: sandbox.Object("", sandbox.Prop("email", true, str)),
				Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
					for _, acc := range tx.Records.(*toyRecords).Accounts {
						if acc.Email == a["email"] {
							return sandbox.Result{"account_id": acc.ID}, "", nil
						}
					}
					return nil, "", sandbox.NotFound("no account")
				}},
			{Name: "file_entry", Agents: []string{string(clerk)}, Access: sandbox.Write, Record: "entry", ResultID: "entry_id",
				Description: "file an entry for a request",
				Args: sandbox.Object("", sandbox.Prop("request", true, str), sandbox.Prop("account", true, str),
					sandbox.Prop("amount", true, sandbox.Schema{Type: sandbox.TypeNumber}), sandbox.Prop("category", true, str)),
				Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
					r := tx.Records.(*toyRecords)
					amount, _ := sandbox.ToNumber("amount", a["amount"])
					e := toyEntry{ID: tx.NewID(), Request: a["request"].(string), Account: a["account"].(string),
						Amount: amount, Category: a["category"].(string)}
					r.Entries = append(r.Entries, e)
					return sandbox.Result{"entry_id": e.ID}, e.ID, nil
				}},
		},
	})
	if err != nil {
		panic(err)
	}
	return reg
}

// deskCore reads a request and hands it on. It does not decide through
// its turn, so the kernel applies the Decide seam to its result's
// category.
func deskCore(_ context.Context, t *mission.Turn) (mission.Result, error) {
	req, _ := t.Input.Attachment.(*toyRequest)
	if req == nil {
		req = &toyRequest{Category: "general"}
	}
	res := mission.Result{"request_id": t.Item, "amount": req.Amount, "category": req.Category, "account_id": "", "escalation": "none"}
	out, err := t.Call("get_account", sandbox.Args{"email": t.Input.From})
	if err == nil {
		res["account_id"] = out["account_id"]
	} else {
		res["escalation"] = mission.EscalationRequested
	}
	t.Step("read", req.Category, len(t.Input.Body), 40)
	return res, nil
}

// clerkCore files the entry the desk asked for.
func clerkCore(_ context.Context, t *mission.Turn) (mission.Result, error) {
	p := t.Messages[0].Payload
	args := sandbox.Args{"request": p["request_id"], "account": p["account_id"], "amount": p["amount"], "category": p["category"]}
	res := mission.Result{"entry_id": ""}
	if t.Decide("file", "file") == "file" {
		if out, err := t.Call("file_entry", args); err == nil {
			res["entry_id"] = out["entry_id"]
		}
	}
	t.Step("file", "file", 0, 20)
	return res, nil
}

func toyCheck(sc *mission.Scenario, end *sandbox.State) []sandbox.Difference {
	want := sc.Expect.(*toyExpected)
	got := end.Records.(*toyRecords)
	log := sandbox.ReadLog(end.Log)
	var diffs []sandbox.Difference
	for _, in := range sc.Inputs {
		w, ok := want.Entries[in.ID]
		if !ok {
			continue
		}
		var mine []toyEntry
		for _, e := range got.Entries {
			if e.Request == in.ID && log.Written(e.ID) {
				mine = append(mine, e)
			}
		}
		rec := "entry:" + in.ID
		switch {
		case len(mine) == 0:
			diffs = append(diffs, sandbox.Difference{Record: rec, Field: "outcome", Want: "filed", Got: "none"})
			continue
		case len(mine) > 1:
			diffs = append(diffs, sandbox.Difference{Record: rec, Field: "count", Want: "1", Got: strconv.Itoa(len(mine))})
		}
		if math.Round(mine[0].Amount*100) != math.Round(w.Amount*100) {
			diffs = append(diffs, sandbox.Difference{Record: rec, Field: "amount", Want: strconv.FormatFloat(w.Amount, 'f', 2, 64),
				Got: strconv.FormatFloat(mine[0].Amount, 'f', 2, 64)})
		}
		if mine[0].Category != w.Category {
			diffs = append(diffs, sandbox.Difference{Record: rec, Field: "category", Want: w.Category, Got: mine[0].Category})
		}
	}
	slices.SortFunc(diffs, func(a, b sandbox.Difference) int { return compare(a.Record+a.Field, b.Record+b.Field) })
	return diffs
}

func toyScenarios() []*mission.Scenario {
	accounts := []toyAccount{{ID: "ACC-1", Email: "ana@example.org"}, {ID: "ACC-2", Email: "ben@example.org"}}
	req := func(id, from string, amount float64, category string) mission.Input {
		return mission.Input{ID: id, From: from, Subject: "request " + id, Body: "please file this", Attachment: &toyRequest{Amount: amount, Category: category}}
	}
	mk := func(id string, cat mission.Category, inputs ...mission.Input) *mission.Scenario {
		x := &toyExpected{Entries: map[string]toyRequest{}}
		for _, in := range inputs {
			x.Entries[in.ID] = *in.Attachment.(*toyRequest)
		}
		return &mission.Scenario{ID: id, Title: "toy " + id, Category: cat, Tags: []string{"category:" + string(cat)}, Day: "2026-03-02",
			Initial: sandbox.State{Records: &toyRecords{Accounts: accounts}}, Inputs: inputs, Expect: x}
	}
	return []*mission.Scenario{
		mk("T1", mission.CategoryTypical, req("R1", "ana@example.org", 120, "general")),
		mk("T2", mission.CategoryTypical, req("R1", "ben@example.org", 35.5, "urgent"), req("R2", "ana@example.org", 1, "general")),
		mk("T3", mission.CategoryEdge, req("R1", "ana@example.org", 0.01, "general")),
	}
}

var toyContracts = fstest.MapFS{"desk-clerk.yaml": {Data: []byte(`edge: desk->clerk
kind: request.accepted
version: "1.0"
owner: clerk
fields:
  request_id: {type: string, required: true}
  amount:     {type: number, required: true, minimum: 0}
  category:   {type: string, required: true, enum: [general, urgent]}
  account_id: {type: string, required: true, allow_empty: true}
`)}}

const toyCatalogue = `mutants:
  - id: cl-desk-clerk-amount
    class: context_loss
    operator: drop_field
    edge: desk->clerk
    field: amount
    description: the desk's new form no longer forwards the amount
  - id: cd-desk-clerk-amount-cents
    class: contract_drift
    operator: reformat_field
    edge: desk->clerk
    field: amount
    format: cents
    description: the desk writes amounts in cents
  - id: ctl-clerk-amount
    class: control
    operator: wrong_tool_arg
    agent: clerk
    tool: file_entry
    arg: amount
    value: 999
    description: a test amount left in the clerk's call
`

const toyProtocol = `name: toy
mission: {name: toy, version: "0.1"}
scenarios: {}
mutants: {catalogue: default, mode: replace}
contracts: {level: semantic}
designs: [A, B, C]
design_a_inputs: golden
trials: 3
seed: 5
profile: {}
faults:
  "*": {timeout_after_commit: 0.05, unavailable: 0.05}
  transport: {redelivery: 0.05}
review_sample: 4
cost_weights: {per_model_call: 0.0, per_1k_tokens: 0.002, per_tool_call: 0.0001, per_environment_reset: 0.0005, per_fixture_reset: 0.00005, currency: EUR}
thresholds: {h1_min_gap: 0.3, h2_max_detection_gap: 0.1, h2_min_localisation_gain: 0.2, h2_max_cost_ratio: 0.5, h3_min_gap: 0}
`

func toyMission(tb testing.TB) mission.Mission {
	tb.Helper()
	m, err := mission.New(mission.Definition{
		Spec: &mission.Spec{
			Name: "toy", Version: "0.1",
			Agents: []mission.AgentSpec{
				{Name: desk, Slips: []mission.Slip{mission.Misroute},
					Decisions: []mission.Decision{{Kind: "category", Field: "category", Choices: []string{"general", "urgent"}}}},
				{Name: clerk, Decisions: []mission.Decision{{Kind: "file", Choices: []string{"file", "skip"}}}},
			},
			Entry: desk,
			Messages: []mission.MessageSpec{{Kind: "request.accepted", Fields: []mission.Field{
				{Name: "request_id", Type: mission.FieldString}, {Name: "amount", Type: mission.FieldNumber},
				{Name: "category", Type: mission.FieldString, Default: "general"}, {Name: "account_id", Type: mission.FieldString},
			}}},
			Edges:         []mission.EdgeSpec{{From: desk, To: clerk, Kind: "request.accepted", Escalation: true}},
			Tools:         toyRegistry(),
			SchemaVersion: "1.0",
			ItemField:     "request_id",
			MaxAttempts:   3,
			Contracts:     toyContracts,
			Catalogue:     mission.File{Name: "toy/catalogue.yaml", Data: []byte(toyCatalogue)},
			Protocol:      mission.File{Name: "toy/protocol.yaml", Data: []byte(toyProtocol)},
		},
		Cores: map[mission.Agent]mission.Core{desk: mission.CoreFunc(deskCore), clerk: mission.Policy(clerkCore)},
		Check: toyCheck,
		Scenarios: func() ([]*mission.Scenario, string, error) {
			return toyScenarios(), "toy-scenarios", nil
		},
		ParseScenarios: func(name string, _ []byte) ([]*mission.Scenario, error) {
			return nil, errors.New(name + ": the toy mission reads no scenario files")
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// flaggedBy reports which scenarios a design flags on build b.
func flaggedBy(tb testing.TB, m mission.Mission, d designs.Design, b mission.Build, set *contracts.Set) []string {
	tb.Helper()
	var out []string
	for _, sc := range toyScenarios() {
		g, err := designs.PrepareGolden(m, sc)
		if err != nil {
			tb.Fatal(err)
		}
		v, err := d.Evaluate(designs.Input{Mission: m, Build: b, Scenario: sc, Seed: 3, Golden: g, Contracts: set, Level: contracts.LevelSemantic})
		if err != nil {
			tb.Fatal(err)
		}
		if v.Flagged {
			out = append(out, sc.ID)
		}
	}
	return out
}

func TestToyMissionThroughDesigns(t *testing.T) {
	m := toyMission(t)
	set, err := contracts.LoadFS(toyContracts, "toy/contracts")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := mutants.Default(m.Spec())
	if err != nil {
		t.Fatal(err)
	}
	build := func(id string) mission.Build {
		mu, ok := cat.ByID(id)
		if !ok {
			t.Fatalf("no mutant %s", id)
		}
		return mu.Switch(nil)
	}
	for _, tc := range []struct {
		name    string
		build   mission.Build
		flagged map[string]bool // by design id
	}{
		{"clean", mission.Clean(), map[string]bool{"A": false, "A.wire": false, "B": false, "C": false, "D": false}},
		{"control", build("ctl-clerk-amount"), map[string]bool{"A": true, "A.wire": true, "B": true, "C": true, "D": true}},
		// A's result scorecard scores the desk's core, which the emitter's
		// drop leaves alone; its wire scorecard, the end state and the
		// contract see it.
		{"dropped amount", build("cl-desk-clerk-amount"), map[string]bool{"A": false, "A.wire": true, "B": true, "C": true, "D": true}},
		{"amount in cents", build("cd-desk-clerk-amount-cents"), map[string]bool{"A": false, "A.wire": true, "B": true, "C": false, "D": true}},
	} {
		wire, _ := designs.Lookup("A.wire")
		for _, d := range append(designs.All(), wire) {
			got := len(flaggedBy(t, m, d, tc.build, set)) > 0
			if got != tc.flagged[d.ID] {
				t.Errorf("%s: design %s flags %v, want %v", tc.name, d.ID, got, tc.flagged[d.ID])
			}
		}
	}
	// D's rules read only the kernel's trace vocabulary: on this mission too
	// they name the edge of a hand-off defect, where B names the writer.
	for _, id := range []string{"cl-desk-clerk-amount", "cd-desk-clerk-amount-cents"} {
		v, err := designs.TraceAttribution.Evaluate(designs.Input{Mission: m, Build: build(id), Scenario: toyScenarios()[0], Seed: 1})
		if err != nil || len(v.Blame) == 0 || v.Blame[0] != "desk->clerk" {
			t.Errorf("%s: D blames %v (%v), want desk->clerk first", id, v.Blame, err)
		}
	}
	// B blames the writer of the differing record, from the tools.
	v, err := designs.EndToEnd.Evaluate(designs.Input{Mission: m, Build: build("ctl-clerk-amount"), Scenario: toyScenarios()[0], Seed: 1})
	if err != nil || len(v.Blame) == 0 || v.Blame[0] != "clerk" {
		t.Errorf("B blames %v (%v), want clerk first", v.Blame, err)
	}
	// The kernel applies the Decide seam to a result's decision field for a
	// core that does not decide in its turn.
	urgent := mission.NewBuild(decideTo{kind: "category", to: "urgent"}, nil)
	if got := flaggedBy(t, m, designs.EndToEnd, urgent, set); len(got) != 3 {
		t.Errorf("B flags %v with every category flipped to urgent, want every scenario (each has a general request)", got)
	}
}

// decideTo changes every decision of kind to one choice.
type decideTo struct {
	mission.NoSeams
	kind, to string
}

func (s decideTo) Decide(_ mission.Agent, kind, _, choice string) string {
	if kind == s.kind {
		return s.to
	}
	return choice
}

func TestToyMissionSweep(t *testing.T) {
	reg, err := mission.NewRegistry(toyMission(t))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := experiment.Run(context.Background(), experiment.Options{Missions: reg, OutDir: t.TempDir(), Workers: 2, GCPercent: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Valid {
		t.Fatalf("the toy sweep is discarded: %s", sum.Reason)
	}
	if want := 4 * 3 * 3 * 4; sum.Items != want { // builds × scenarios × trials × (designs + observation)
		t.Errorf("%d items, want %d", sum.Items, want)
	}
	detected := map[string]int{}
	for _, d := range sum.Results.Detection {
		detected[d.Design+"/"+d.Class] = d.Detected
	}
	if detected["B/context_loss"] == 0 || detected["C/context_loss"] == 0 || detected["A/context_loss"] != 0 {
		t.Errorf("context loss detected by A %d, B %d, C %d; want only B and C", detected["A/context_loss"], detected["B/context_loss"], detected["C/context_loss"])
	}
	if _, err := filepath.Abs(sum.RunDir); err != nil {
		t.Fatal(err)
	}
	if sum.Manifest.Mission.Name != "toy" {
		t.Errorf("manifest mission %q", sum.Manifest.Mission.Name)
	}
}
