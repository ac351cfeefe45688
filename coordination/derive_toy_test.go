package coordination_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// A toy mission of three agents, defined here for the derivation's tests:
// a desk reads each request, looks its account up and routes it to a
// clerk (flagging a large one to the auditor as well); the clerk checks
// the account, files an entry and reports it to the auditor; the auditor
// collects the day's messages, checks and marks each filed entry
// reviewed, and publishes what it collected. Each core takes the
// decisions a breaking build may turn: the clerk's "think" (one step or
// two) and the auditor's "check" (read the entry before marking it).

const (
	desk    mission.Agent = "desk"
	clerk   mission.Agent = "clerk"
	auditor mission.Agent = "auditor"
)

const toyEmail = "ana@example.org"

type toyRecords struct {
	Accounts []toyRow `json:"accounts"`
	Entries  []toyRow `json:"entries"`
}

// toyRow is an account (ID, Email) or an entry (ID, Request, Amount,
// Reviewed).
type toyRow struct {
	ID       string  `json:"id"`
	Email    string  `json:"email,omitempty"`
	Request  string  `json:"request,omitempty"`
	Amount   float64 `json:"amount,omitempty"`
	Reviewed bool    `json:"reviewed,omitempty"`
}

func (r *toyRecords) CopyFrom(src sandbox.Records) {
	s := src.(*toyRecords)
	r.Accounts, r.Entries = slices.Clone(s.Accounts), slices.Clone(s.Entries)
}
func (r *toyRecords) Clone() sandbox.Records {
	return &toyRecords{Accounts: slices.Clone(r.Accounts), Entries: slices.Clone(r.Entries)}
}
func (r *toyRecords) Reset() { r.Accounts, r.Entries = nil, nil }
func (r *toyRecords) Sort()  {}
func (r *toyRecords) IDs(fn func(int, string)) {
	for _, e := range r.Entries {
		fn(0, e.ID)
	}
}
func (r *toyRecords) AppendJSON(b []byte) ([]byte, error) {
	j, err := json.Marshal(r)
	return append(b, j...), err
}

var _ sandbox.Records = (*toyRecords)(nil)

func toyTools() []sandbox.Tool {
	str := sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true}
	num := sandbox.Schema{Type: sandbox.TypeNumber}
	entry := func(tx *sandbox.Tx, id any) *toyRow {
		r := tx.Records.(*toyRecords)
		for i := range r.Entries {
			if r.Entries[i].ID == id {
				return &r.Entries[i]
			}
		}
		return nil
	}
	return []sandbox.Tool{
		{Name: "lookup_account", Agents: []string{string(desk), string(clerk)},
			Args: sandbox.Object("", sandbox.Prop("email", false, str), sandbox.Prop("id", false, str)),
			Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
				for _, acc := range tx.Records.(*toyRecords).Accounts {
					if acc.Email == a["email"] || acc.ID == a["id"] {
						return sandbox.Result{"account": acc.ID}, "", nil
					}
				}
				return nil, "", sandbox.NotFound("no account")
			}},
		{Name: "file_entry", Agents: []string{string(clerk)}, Access: sandbox.Write, Record: "entry", ResultID: "entry_id",
			Args: sandbox.Object("", sandbox.Prop("request", true, str), sandbox.Prop("account", true, str), sandbox.Prop("amount", true, num)),
			Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
				r := tx.Records.(*toyRecords)
				amount, _ := sandbox.ToNumber("amount", a["amount"])
				e := toyRow{ID: tx.NewID(), Request: a["request"].(string), Amount: amount}
				r.Entries = append(r.Entries, e)
				return sandbox.Result{"entry_id": e.ID}, e.ID, nil
			}},
		{Name: "get_entry", Agents: []string{string(auditor)}, Args: sandbox.Object("", sandbox.Prop("id", true, str)),
			Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
				if e := entry(tx, a["id"]); e != nil {
					return sandbox.Result{"id": e.ID, "amount": e.Amount}, "", nil
				}
				return nil, "", sandbox.NotFound("no entry")
			}},
		{Name: "mark_reviewed", Agents: []string{string(auditor)}, Access: sandbox.Write, Record: "review", ResultID: "entry_id",
			Args: sandbox.Object("", sandbox.Prop("id", true, str)),
			Handler: func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
				e := entry(tx, a["id"])
				if e == nil {
					return nil, "", sandbox.NotFound("no entry")
				}
				e.Reviewed = true
				return sandbox.Result{"entry_id": e.ID}, e.ID, nil
			}},
	}
}

func toySpec(tb testing.TB) *mission.Spec {
	tb.Helper()
	reg, err := sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return new(toyRecords) },
		Kinds:   []sandbox.RecordKind{{Name: "entry", Prefix: "ENT"}, {Name: "review", Prefix: "REV"}},
		Tools:   toyTools(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	f := func(name string, t mission.FieldType) mission.Field { return mission.Field{Name: name, Type: t} }
	return &mission.Spec{
		Name: "toy-coordination", Version: "1", Entry: desk, ItemField: "request", SchemaVersion: "1", MaxAttempts: 3, Tools: reg,
		Agents: []mission.AgentSpec{{Name: desk}, {Name: clerk}, {Name: auditor, Collect: true}},
		Messages: []mission.MessageSpec{
			{Kind: "req.routed", Fields: []mission.Field{f("request", mission.FieldString), f("account", mission.FieldString), f("amount", mission.FieldNumber)}},
			{Kind: "entry.filed", Fields: []mission.Field{f("request", mission.FieldString), f("entry_id", mission.FieldString), f("amount", mission.FieldNumber)}},
			{Kind: "req.flagged", Fields: []mission.Field{f("request", mission.FieldString), f("amount", mission.FieldNumber)}},
		},
		Edges: []mission.EdgeSpec{
			{From: desk, To: clerk, Kind: "req.routed"},
			{From: clerk, To: auditor, Kind: "entry.filed"},
			{From: desk, To: auditor, Kind: "req.flagged", Source: "flag"},
		},
	}
}

func toyDesk(_ context.Context, t *mission.Turn) (mission.Result, error) {
	amount := t.Input.Attachment.(*toyAmount).Amount
	res := mission.Result{"request": t.Item, "amount": amount, "account": ""}
	if out, err := t.Call("lookup_account", sandbox.Args{"email": t.Input.From}); err == nil {
		res["account"] = out["account"]
	}
	if amount > 100 {
		res["flag"] = map[string]any{"request": t.Item, "amount": amount}
	}
	t.Step("route", string(clerk), 0, 10)
	return res, nil
}

func toyClerk(_ context.Context, t *mission.Turn) (mission.Result, error) {
	p := t.Messages[0].Payload
	t.Call("lookup_account", sandbox.Args{"id": p["account"]})
	res := mission.Result{"request": p["request"], "amount": p["amount"], "entry_id": ""}
	if out, err := t.Call("file_entry", sandbox.Args{"request": p["request"], "account": p["account"], "amount": p["amount"]}); err == nil {
		res["entry_id"] = out["entry_id"]
	}
	t.Step("file", "file", 0, 10)
	if t.Decide("think", "once") == "twice" {
		t.Step("file", "file", 0, 10)
	}
	return res, nil
}

func toyAuditor(_ context.Context, t *mission.Turn) (mission.Result, error) {
	var seen []any
	for _, m := range t.Messages {
		seen = append(seen, map[string]any{"request": m.Payload["request"], "amount": m.Payload["amount"]})
		id, _ := m.Payload["entry_id"].(string)
		if id == "" {
			continue
		}
		if t.Decide("check", "read") == "read" {
			t.Call("get_entry", sandbox.Args{"id": id})
		}
		t.Call("mark_reviewed", sandbox.Args{"id": id})
	}
	t.Step("publish", "publish", 0, 10)
	return mission.Result{"seen": seen}, nil
}

type toyAmount struct{ Amount float64 }

func (a *toyAmount) CloneAttachment() mission.Attachment { c := *a; return &c }

type toyExpect struct{}

func (toyExpect) CloneExpectation() mission.Expectation { return toyExpect{} }

func toyMission(tb testing.TB) (mission.Mission, *mission.Scenario) {
	tb.Helper()
	sc := &mission.Scenario{ID: "T1", Title: "one large request", Category: mission.CategoryTypical, Day: "2026-03-02",
		Initial: sandbox.State{Records: &toyRecords{Accounts: []toyRow{{ID: "ACC-1", Email: toyEmail}}}},
		Inputs:  []mission.Input{{ID: "R1", From: toyEmail, Subject: "request", Attachment: &toyAmount{Amount: 120}}},
		Expect:  toyExpect{}}
	m, err := mission.New(mission.Definition{
		Spec:  toySpec(tb),
		Cores: map[mission.Agent]mission.Core{desk: mission.Policy(toyDesk), clerk: mission.Policy(toyClerk), auditor: mission.Policy(toyAuditor)},
		Check: func(*mission.Scenario, *sandbox.State) []sandbox.Difference { return nil },
		Scenarios: func() ([]*mission.Scenario, string, error) {
			return []*mission.Scenario{sc}, "toy", nil
		},
		ParseScenarios: func(string, []byte) ([]*mission.Scenario, error) { return nil, nil },
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m, sc
}

// toySeams is a build's seams from whichever hooks are set; the others
// change nothing.
type toySeams struct {
	mission.NoSeams
	decide   func(agent mission.Agent, kind, choice string) string
	toolArgs func(agent mission.Agent, tool string, args sandbox.Args)
	retryKey func(key string, attempt int) string
	emit     func(e mission.Edge, msg *mission.Message)
	route    func(e mission.Edge, owners []mission.Agent) []mission.Agent
}

var _ mission.Seams = toySeams{}

func (s toySeams) Decide(agent mission.Agent, kind, item, choice string) string {
	if s.decide != nil {
		return s.decide(agent, kind, choice)
	}
	return choice
}

func (s toySeams) ToolArgs(agent mission.Agent, tool, item string, args sandbox.Args) {
	if s.toolArgs != nil {
		s.toolArgs(agent, tool, args)
	}
}

func (s toySeams) RetryKey(_ mission.Agent, _, _, key string, attempt int) string {
	if s.retryKey != nil {
		return s.retryKey(key, attempt)
	}
	return key
}

func (s toySeams) Emit(e mission.Edge, msg *mission.Message) {
	if s.emit != nil {
		s.emit(e, msg)
	}
}

func (s toySeams) Route(e mission.Edge, owners []mission.Agent) []mission.Agent {
	if s.route != nil {
		return s.route(e, owners)
	}
	return owners
}
