package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// toyRecords is the toy spec's system of record: the generator never
// runs a tool, it only reads the registry.
type toyRecords struct{}

func (*toyRecords) CopyFrom(sandbox.Records)            {}
func (*toyRecords) Clone() sandbox.Records              { return &toyRecords{} }
func (*toyRecords) Reset()                              {}
func (*toyRecords) Sort()                               {}
func (*toyRecords) IDs(func(int, string))               {}
func (*toyRecords) AppendJSON(b []byte) ([]byte, error) { return append(b, "{}"...), nil }

// toySpec is a mission of two agents, defined here and nowhere else: a
// desk looks each request's account up and hands it to a clerk (edge
// desk->clerk, carrying escalation state), who files an entry or skips it;
// the clerk tells the desk what it did (clerk->desk).
func toySpec(tb testing.TB) *mission.Spec {
	tb.Helper()
	str := sandbox.Schema{Type: sandbox.TypeString}
	none := func(*sandbox.Tx, sandbox.Args) (sandbox.Result, string, *sandbox.Error) { return nil, "", nil }
	reg, err := sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return &toyRecords{} },
		Kinds:   []sandbox.RecordKind{{Name: "entry", Prefix: "ENT"}},
		Tools: []sandbox.Tool{
			{Name: "get_account", Agents: []string{"desk"}, Handler: none,
				Args: sandbox.Object("", sandbox.Prop("email", true, str))},
			{Name: "file_entry", Agents: []string{"clerk"}, Handler: none, Access: sandbox.Write, Record: "entry", ResultID: "entry_id",
				Args: sandbox.Object("",
					sandbox.Prop("request", true, sandbox.Schema{Type: sandbox.TypeString, Format: sandbox.FormatID}),
					sandbox.Prop("amount", true, sandbox.Schema{Type: sandbox.TypeNumber}),
					sandbox.Prop("currency", true, sandbox.Schema{Type: sandbox.TypeString, Format: sandbox.FormatCurrency}),
					sandbox.Prop("due", false, sandbox.Schema{Type: sandbox.TypeString, Format: sandbox.FormatDate}),
					sandbox.Prop("kind", true, sandbox.Schema{Type: sandbox.TypeString, Enum: []string{"credit", "debit"}}),
					sandbox.Prop("urgent", false, sandbox.Schema{Type: sandbox.TypeBoolean}),
					sandbox.Prop("tags", false, sandbox.Schema{Type: sandbox.TypeArray, Items: &str}),
					sandbox.Prop("note", false, str))},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return &mission.Spec{
		Name: "toy", Version: "0.1",
		Agents: []mission.AgentSpec{
			{Name: "desk"},
			{Name: "clerk", Decisions: []mission.Decision{{Kind: "file", Field: "filed", Choices: []string{"file", "skip"}}}},
		},
		Entry: "desk",
		Messages: []mission.MessageSpec{
			{Kind: "request.read", Fields: []mission.Field{
				{Name: "request_id", Type: mission.FieldString},
				{Name: "amount", Type: mission.FieldNumber},
				{Name: "due", Type: mission.FieldDate, DefaultDays: 7},
				{Name: "category", Type: mission.FieldString, Default: "general"},
			}},
			{Kind: "entry.filed", Fields: []mission.Field{{Name: "urgent", Type: mission.FieldBool}}},
		},
		Edges: []mission.EdgeSpec{
			{From: "desk", To: "clerk", Kind: "request.read", Escalation: true},
			{From: "clerk", To: "desk", Kind: "entry.filed"},
		},
		Tools: reg,
	}
}

// TestGenerateToy pins the operator × site enumeration on the toy spec:
// every operator at every site where it applies, nothing else, in order,
// each with its operator's class.
func TestGenerateToy(t *testing.T) {
	muts, err := Generate(toySpec(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range muts {
		got = append(got, string(m.Class)+" "+m.ID)
	}
	want := []string{
		// desk->clerk × payload field: drop, rename, each reformat of its type.
		"context_loss drop_field.desk-clerk.request_id",
		"contract_drift rename_field.desk-clerk.request_id",
		"context_loss drop_field.desk-clerk.amount",
		"contract_drift rename_field.desk-clerk.amount",
		"contract_drift reformat_field.desk-clerk.amount.cents",
		"contract_drift reformat_field.desk-clerk.amount.decimal_comma",
		"context_loss drop_field.desk-clerk.due",
		"contract_drift rename_field.desk-clerk.due",
		"contract_drift reformat_field.desk-clerk.due.date_dmy",
		"context_loss drop_field.desk-clerk.category",
		"contract_drift rename_field.desk-clerk.category",
		"context_loss drop_field.clerk-desk.urgent",
		"contract_drift rename_field.clerk-desk.urgent",
		// The one write tool × its one agent × both retry operators.
		"duplicate_action retry_without_key.clerk.file_entry",
		"duplicate_action fresh_key_on_retry.clerk.file_entry",
		// Each edge: redelivery, no owner, a second owner for each other agent.
		"duplicate_action redeliver_without_dedup.desk-clerk",
		"ambiguous_ownership clear_owner.desk-clerk",
		"ambiguous_ownership double_owner.desk-clerk.desk",
		"duplicate_action redeliver_without_dedup.clerk-desk",
		"ambiguous_ownership clear_owner.clerk-desk",
		"ambiguous_ownership double_owner.clerk-desk.clerk",
		// The escalation hand-off only.
		"escalation_gap escalation_flag_meaning.desk-clerk",
		"escalation_gap assume_other_escalated.desk-clerk",
		// Each tool argument × its realistic wrong values.
		"control wrong_tool_arg.desk.get_account.email.empty",
		"control perturb_tool_arg.clerk.file_entry.request.neighbour_id",
		"control perturb_tool_arg.clerk.file_entry.amount.leading_digit",
		"control perturb_tool_arg.clerk.file_entry.currency.swap_currency",
		"control perturb_tool_arg.clerk.file_entry.due.next_day",
		"control wrong_tool_arg.clerk.file_entry.kind.credit",
		"control wrong_tool_arg.clerk.file_entry.kind.debit",
		"control perturb_tool_arg.clerk.file_entry.urgent.negate",
		"control perturb_tool_arg.clerk.file_entry.tags.drop_last",
		"control wrong_tool_arg.clerk.file_entry.note.empty",
		// Each decision × its alternatives, and each emitter's route.
		"control flip_decision.desk.route.clerk-desk",
		"control flip_decision.clerk.file.file-skip",
		"control flip_decision.clerk.file.skip-file",
		"control flip_decision.clerk.route.desk-clerk",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("generated space (-want +got):\n%s", diff)
	}
	// Parameters and ground truth, for one mutant of each family.
	byID := map[string]*Mutant{}
	for _, m := range muts {
		byID[m.ID] = m
	}
	for _, c := range []struct {
		id, want string
		got      func(m *Mutant) string
	}{
		{"rename_field.desk-clerk.request_id", "requestId @ desk->clerk",
			func(m *Mutant) string { return m.To + " @ " + string(m.Location()) }},
		{"retry_without_key.clerk.file_entry", "clerk file_entry @ desk->clerk",
			func(m *Mutant) string { return m.Agent + " " + m.Tool + " @ " + string(m.Location()) }},
		{"double_owner.desk-clerk.desk", "desk @ desk->clerk",
			func(m *Mutant) string { return fmt.Sprint(m.Value) + " @ " + string(m.Location()) }},
		{"perturb_tool_arg.clerk.file_entry.amount.leading_digit", "amount leading_digit @ clerk",
			func(m *Mutant) string { return m.Arg + " " + m.Change + " @ " + string(m.Location()) }},
		{"wrong_tool_arg.desk.get_account.email.empty", `"" @ desk`,
			func(m *Mutant) string { return fmt.Sprintf("%q @ %s", m.Value, m.Location()) }},
		{"flip_decision.clerk.route.desk-clerk", "route desk->clerk @ clerk",
			func(m *Mutant) string { return m.Decision + " " + m.From + "->" + m.To + " @ " + string(m.Location()) }},
	} {
		m := byID[c.id]
		if m == nil {
			t.Errorf("%s not generated", c.id)
			continue
		}
		if g := c.got(m); g != c.want {
			t.Errorf("%s: got %s, want %s", c.id, g, c.want)
		}
	}
}

// TestSpaceInvoice: the reference mission's generated space reads back as
// the catalogue it encodes, every class has mutants, and generating it
// again gives the same bytes.
func TestSpaceInvoice(t *testing.T) {
	spec := invoice.Spec()
	c, data, err := Space(spec)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Mutants); n < 150 {
		t.Errorf("%d mutants, want at least 150", n)
	}
	for _, cl := range AllClasses {
		if len(c.ByClass(cl)) == 0 {
			t.Errorf("no %s mutant", cl)
		}
	}
	muts, err := Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(muts) != len(c.Mutants) {
		t.Fatalf("Generate gives %d mutants, the catalogue %d", len(muts), len(c.Mutants))
	}
	for i, m := range muts {
		got := *c.Mutants[i]
		if !strings.HasPrefix(got.Source, GeneratedName+":") {
			t.Errorf("%s: source %q", got.ID, got.Source)
		}
		got.Source = ""
		if diff := cmp.Diff(*m, got); diff != "" {
			t.Errorf("mutant %d reads back changed (-generated +parsed):\n%s", i, diff)
		}
	}
	_, again, err := Space(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("two generations differ")
	}
	if len(c.Sources) != 1 || c.Sources[0].Name != GeneratedName {
		t.Errorf("sources %+v", c.Sources)
	}
}

func TestGenerateErrors(t *testing.T) {
	if _, err := Generate(nil); err == nil {
		t.Error("nil spec: no error")
	}
	// Two agents whose names make one slug: a-b->c and a->b-c.
	spec := &mission.Spec{
		Name:     "clash",
		Agents:   []mission.AgentSpec{{Name: "a"}, {Name: "b-c"}, {Name: "a-b"}, {Name: "c"}},
		Messages: []mission.MessageSpec{{Kind: "k", Fields: []mission.Field{{Name: "f", Type: mission.FieldString}}}},
		Edges:    []mission.EdgeSpec{{From: "a-b", To: "c", Kind: "k"}, {From: "a", To: "b-c", Kind: "k"}},
	}
	_, err := Generate(spec)
	if err == nil || !strings.Contains(err.Error(), "two sites give id drop_field.a-b-c.f") {
		t.Errorf("clashing sites: %v", err)
	}
}

func TestSample(t *testing.T) {
	c, _, err := Space(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	ids := func(c *Catalogue) []string {
		var out []string
		for _, m := range c.Mutants {
			out = append(out, m.ID)
		}
		return out
	}
	s := c.Sample(3, 7)
	for _, cl := range AllClasses {
		if n := len(s.ByClass(cl)); n != 3 {
			t.Errorf("class %s: %d sampled, want 3", cl, n)
		}
	}
	if diff := cmp.Diff(ids(s), ids(c.Sample(3, 7))); diff != "" {
		t.Errorf("same seed, other sample (-first +second):\n%s", diff)
	}
	if cmp.Equal(ids(s), ids(c.Sample(3, 8))) {
		t.Error("seeds 7 and 8 draw the same sample")
	}
	// Catalogue order is kept.
	pos := map[string]int{}
	for i, id := range ids(c) {
		pos[id] = i
	}
	got := ids(s)
	for i := 1; i < len(got); i++ {
		if pos[got[i-1]] > pos[got[i]] {
			t.Errorf("sample out of catalogue order: %s before %s", got[i-1], got[i])
		}
	}
	// A class's draw does not depend on the other classes: drop one class
	// and the others' samples stay.
	rest := &Catalogue{}
	for _, m := range c.Mutants {
		if m.Class != Control {
			rest.Mutants = append(rest.Mutants, m)
		}
	}
	for _, cl := range AllClasses[:5] {
		if diff := cmp.Diff(ids(&Catalogue{Mutants: s.ByClass(cl)}), ids(&Catalogue{Mutants: rest.Sample(3, 7).ByClass(cl)})); diff != "" {
			t.Errorf("class %s's sample depends on the control class (-with +without):\n%s", cl, diff)
		}
	}
	if all := c.Sample(10000, 1); len(all.Mutants) != len(c.Mutants) {
		t.Errorf("n above every class: %d of %d", len(all.Mutants), len(c.Mutants))
	}
	if c.Sample(0, 1) != c {
		t.Error("n 0 does not return the catalogue")
	}
}

// TestEncodeReadsBack: values YAML would read as something else (a
// number, a boolean, null, a key) come back as the strings they were.
func TestEncodeReadsBack(t *testing.T) {
	spec := invoice.Spec()
	var muts []*Mutant
	for i, v := range []any{"", "1", "yes", "null", "a: b", "#x", " lead", "quote\"d", "->", "ü", 42.5, true, []any{"a", 1.0}, map[string]any{"k": "v"}} {
		muts = append(muts, &Mutant{ID: fmt.Sprintf("m%d", i), Class: Control, Operator: "wrong_tool_arg", Agent: "boundary",
			Tool: "schedule_payment", Arg: "bank_account", Value: v, Description: fmt.Sprintf("value %v: 'quoted' \"twice\"", v)})
	}
	data := Encode(muts, "a header\n\nwith a blank line")
	c, err := Parse("x.yaml", data, spec)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for i, m := range muts {
		got := c.Mutants[i]
		want, _ := json.Marshal(m.Value)
		gotV, _ := json.Marshal(got.Value)
		if !bytes.Equal(want, gotV) || got.Description != m.Description {
			t.Errorf("%s: value %s, description %q; want %s, %q", m.ID, gotV, got.Description, want, m.Description)
		}
	}
	if !bytes.HasPrefix(data, []byte("# a header\n#\n# with a blank line\n\nmutants:\n")) {
		t.Errorf("header:\n%s", data[:80])
	}
}
