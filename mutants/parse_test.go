package mutants

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission/invoice"
)

const goodYAML = `mutants:
  - id: u-drop-tax
    class: context_loss
    operator: drop_field
    edge: intake->action
    field: tax
    description: tax dropped
  - id: u-wrong-amount
    class: control
    operator: wrong_tool_arg
    agent: boundary
    tool: schedule_payment
    arg: amount
    value: 1
  - id: u-ledger-no-key
    class: duplicate_action
    operator: retry_without_key
    edge: action->boundary
    agent: boundary
    tool: post_ledger
`

func TestParse(t *testing.T) {
	c, err := Parse("user.yaml", []byte(goodYAML), invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	want := []*Mutant{
		{ID: "u-drop-tax", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "tax", Description: "tax dropped", Source: "user.yaml:2"},
		{ID: "u-wrong-amount", Class: Control, Operator: "wrong_tool_arg", Agent: "boundary", Tool: "schedule_payment", Arg: "amount", Value: 1.0, Source: "user.yaml:8"},
		{ID: "u-ledger-no-key", Class: DuplicateAction, Operator: "retry_without_key", Edge: "action->boundary", Agent: "boundary", Tool: "post_ledger", Source: "user.yaml:15"},
	}
	if diff := cmp.Diff(want, c.Mutants); diff != "" {
		t.Errorf("mutants (-want +got):\n%s", diff)
	}
	if got := c.Mutants[0].Location(); got != "intake->action" {
		t.Errorf("Location = %q", got)
	}
	if got := c.Mutants[1].Location(); got != "boundary" {
		t.Errorf("Location = %q", got)
	}
	// A retry operator acts in boundary but is located at the edge it serves.
	if got := c.Mutants[2].Location(); got != "action->boundary" {
		t.Errorf("Location = %q", got)
	}
}

// TestParseErrors feeds one bad entry (or file) per case; each error must
// name the file, the line and the entry.
func TestParseErrors(t *testing.T) {
	entry := func(lines ...string) string {
		return "mutants:\n  - " + strings.Join(lines, "\n    ") + "\n"
	}
	tests := []struct {
		name string
		yaml string
		want wantErr // Problem is matched as a substring
	}{
		{
			name: "unknown operator",
			yaml: entry("id: a", "class: context_loss", "operator: drop_everything", "edge: intake->action"),
			want: wantErr{4, "a.operator", `unknown operator "drop_everything"`},
		},
		{
			name: "missing operator",
			yaml: entry("id: a", "class: context_loss", "edge: intake->action"),
			want: wantErr{2, "a.operator", "missing"},
		},
		{
			name: "unknown class",
			yaml: entry("id: a", "class: flakiness", "operator: clear_owner", "edge: intake->action"),
			want: wantErr{3, "a.class", `unknown class "flakiness"`},
		},
		{
			name: "missing class",
			yaml: entry("id: a", "operator: clear_owner", "edge: intake->action"),
			want: wantErr{2, "a.class", "missing"},
		},
		{
			name: "edge the mission does not have",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->boundary"),
			want: wantErr{5, "a.edge", "the mission has no edge intake->boundary"},
		},
		{
			name: "malformed edge",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake"),
			want: wantErr{5, "a.edge", "want from->to"},
		},
		{
			name: "missing edge",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner"),
			want: wantErr{2, "a.edge", "missing"},
		},
		{
			name: "agent instead of edge",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->action", "agent: intake"),
			want: wantErr{6, "a.agent", "give an edge, not an agent"},
		},
		{
			name: "agent the mission does not have",
			yaml: entry("id: a", "class: control", "operator: wrong_tool_arg", "agent: treasurer", "tool: schedule_payment", "arg: amount", "value: 1"),
			want: wantErr{5, "a.agent", `the mission has no agent "treasurer"`},
		},
		{
			name: "edge instead of agent",
			yaml: entry("id: a", "class: control", "operator: wrong_tool_arg", "edge: intake->action", "tool: schedule_payment", "arg: amount", "value: 1"),
			want: wantErr{5, "a.edge", "give an agent, not an edge"},
		},
		{
			name: "field the edge does not carry",
			yaml: entry("id: a", "class: context_loss", "operator: drop_field", "edge: boundary->monitor", "field: po_number"),
			want: wantErr{6, "a.field", `carries no payload field "po_number"`},
		},
		{
			name: "envelope field",
			yaml: entry("id: a", "class: context_loss", "operator: drop_field", "edge: intake->action", "field: next_owner"),
			want: wantErr{6, "a.field", "envelope field"},
		},
		{
			name: "rename onto a carried field",
			yaml: entry("id: a", "class: contract_drift", "operator: rename_field", "edge: intake->action", "field: net", "to: gross"),
			want: wantErr{7, "a.to", `already carries a payload field "gross"`},
		},
		{
			name: "unknown format",
			yaml: entry("id: a", "class: contract_drift", "operator: reformat_field", "edge: intake->action", "field: net", "format: roman"),
			want: wantErr{7, "a.format", `unknown format "roman"`},
		},
		{
			name: "tool the agent may not call",
			yaml: entry("id: a", "class: control", "operator: wrong_tool_arg", "agent: intake", "tool: schedule_payment", "arg: amount", "value: 1"),
			want: wantErr{6, "a.tool", `agent intake may not call "schedule_payment"`},
		},
		{
			name: "retry of a read",
			yaml: entry("id: a", "class: duplicate_action", "operator: retry_without_key", "edge: intake->action", "agent: intake", "tool: lookup_supplier"),
			want: wantErr{7, "a.tool", "is a read"},
		},
		{
			name: "hand-off class without an edge",
			yaml: entry("id: a", "class: duplicate_action", "operator: retry_without_key", "agent: intake", "tool: register_invoice"),
			want: wantErr{2, "a.edge", "missing: class duplicate_action lives between agents"},
		},
		{
			name: "hand-off class on an operator that takes no edge",
			yaml: entry("id: a", "class: context_loss", "operator: wrong_tool_arg", "agent: boundary", "tool: schedule_payment", "arg: amount", "value: 1"),
			want: wantErr{3, "a.class", "context_loss lives between agents, so its ground truth is an edge, but wrong_tool_arg"},
		},
		{
			name: "edge on an operator that takes none",
			yaml: entry("id: a", "class: context_loss", "operator: wrong_tool_arg", "edge: intake->action", "agent: boundary", "tool: schedule_payment", "arg: amount", "value: 1"),
			want: wantErr{5, "a.edge", "give an agent, not an edge"},
		},
		{
			name: "retry agent at neither end of its edge",
			yaml: entry("id: a", "class: duplicate_action", "operator: fresh_key_on_retry", "edge: intake->action", "agent: boundary", "tool: schedule_payment"),
			want: wantErr{5, "a.edge", "boundary, which is neither end of intake->action"},
		},
		{
			name: "retry edge the mission does not have",
			yaml: entry("id: a", "class: duplicate_action", "operator: fresh_key_on_retry", "edge: boundary->intake", "agent: boundary", "tool: schedule_payment"),
			want: wantErr{5, "a.edge", "the mission has no edge boundary->intake"},
		},
		{
			name: "retry edge without an agent",
			yaml: entry("id: a", "class: duplicate_action", "operator: fresh_key_on_retry", "edge: action->boundary", "tool: schedule_payment"),
			want: wantErr{2, "a.agent", "missing: fresh_key_on_retry acts inside one agent's core"},
		},
		{
			name: "control with an edge",
			yaml: entry("id: a", "class: control", "operator: retry_without_key", "edge: action->boundary", "agent: boundary", "tool: post_ledger"),
			want: wantErr{5, "a.edge", "a control lives inside one agent: give its agent alone, no edge"},
		},
		{
			name: "control on a hand-off seam",
			yaml: entry("id: a", "class: control", "operator: clear_owner", "edge: action->boundary"),
			want: wantErr{3, "a.class", "a control lives inside one agent, but clear_owner acts on a hand-off"},
		},
		{
			name: "missing required param",
			yaml: entry("id: a", "class: control", "operator: wrong_tool_arg", "agent: boundary", "tool: schedule_payment", "value: 1"),
			want: wantErr{2, "a.arg", "missing: wrong_tool_arg needs tool, arg, value"},
		},
		{
			name: "param the operator does not take",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->action", "field: currency"),
			want: wantErr{6, "a.field", "clear_owner takes no field"},
		},
		{
			name: "double owner naming the consumer",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: double_owner", "edge: intake->action", "value: action"),
			want: wantErr{6, "a.value", "action already owns"},
		},
		{
			name: "double owner naming no agent",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: double_owner", "edge: intake->action", "value: auditor"),
			want: wantErr{6, "a.value", `no agent "auditor"`},
		},
		{
			name: "unknown decision",
			yaml: entry("id: a", "class: control", "operator: flip_decision", "agent: boundary", "decision: vibe", "to: escalated"),
			want: wantErr{6, "a.decision", `agent boundary makes no decision "vibe"`},
		},
		{
			name: "null value",
			yaml: entry("id: a", "class: control", "operator: wrong_tool_arg", "agent: boundary", "tool: schedule_payment", "arg: amount", "value: null"),
			want: wantErr{8, "a.value", "null"},
		},
		{
			name: "unknown key",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->action", "severity: high"),
			want: wantErr{6, "a.severity", "unknown field"},
		},
		{
			name: "repeated key",
			yaml: entry("id: a", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->action", "edge: action->boundary"),
			want: wantErr{6, "a.edge", "duplicate key (first at line 5)"},
		},
		{
			name: "list where a string belongs",
			yaml: entry("id: a", "class: [context_loss]", "operator: clear_owner", "edge: intake->action"),
			want: wantErr{3, "a.class", "want a string, got a list"},
		},
		{
			name: "missing id names the entry by position",
			yaml: "mutants:\n  - id: a\n    class: ambiguous_ownership\n    operator: clear_owner\n    edge: intake->action\n  - class: context_loss\n    operator: clear_owner\n    edge: intake->action\n",
			want: wantErr{6, "mutants[1].id", "missing"},
		},
		{
			name: "bad id",
			yaml: entry("id: a b", "class: ambiguous_ownership", "operator: clear_owner", "edge: intake->action"),
			want: wantErr{2, "mutants[0].id", "use letters"},
		},
		{
			name: "duplicate id",
			yaml: "mutants:\n  - id: a\n    class: ambiguous_ownership\n    operator: clear_owner\n    edge: intake->action\n  - id: a\n    class: ambiguous_ownership\n    operator: clear_owner\n    edge: action->boundary\n",
			want: wantErr{6, "a.id", "duplicate id (first at f.yaml:2)"},
		},
		{
			name: "entry not a mapping",
			yaml: "mutants:\n  - drop_field\n",
			want: wantErr{2, "mutants[0]", "want a mapping"},
		},
		{
			name: "unknown top-level key",
			yaml: "mutant:\n  - id: a\n",
			want: wantErr{1, "mutant", "unknown field"},
		},
		{
			name: "no entries",
			yaml: "mutants: []\n",
			want: wantErr{1, "mutants", "no entries"},
		},
		{
			name: "empty file",
			yaml: "",
			want: wantErr{1, "", "empty catalogue"},
		},
		{
			name: "syntax error",
			yaml: "mutants:\n  - id: a\n    class: x: y\n",
			want: wantErr{3, "", "invalid YAML:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tt.yaml), invoice.Spec())
			if err == nil {
				t.Fatal("no error")
			}
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if !strings.Contains(got.Problem, tt.want.Problem) {
				t.Errorf("problem %q does not contain %q", got.Problem, tt.want.Problem)
			}
			if diff := cmp.Diff(tt.want, wantErr{got.Line, got.Field, tt.want.Problem}); diff != "" || got.File != "f.yaml" {
				t.Errorf("error %v (-want +got):\n%s", err, diff)
			}
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Errorf("error %q does not start with the file", err)
			}
		})
	}
}

// wantErr is the line, field and (a part of the) problem an error should
// have.
type wantErr struct {
	Line    int
	Field   string
	Problem string
}

func TestParseReportsEveryError(t *testing.T) {
	yaml := "mutants:\n  - id: a\n    class: nope\n    operator: clear_owner\n    edge: intake->action\n  - id: b\n    class: control\n    operator: nope\n"
	_, err := Parse("f.yaml", []byte(yaml), invoice.Spec())
	want := "f.yaml:3:12: a.class: unknown class \"nope\"" // first line of the joined error
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start with %q", err, want)
	}
	if !strings.Contains(err.Error(), "f.yaml:8:15: b.operator: unknown operator \"nope\"") {
		t.Errorf("second entry's error missing from %v", err)
	}
}

func writeFile(tb testing.TB, name, data string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestLoadModes(t *testing.T) {
	def, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "user.yaml", goodYAML)

	rep, err := Load(path, def, ModeReplace, invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(rep); !cmp.Equal([]string{"u-drop-tax", "u-wrong-amount", "u-ledger-no-key"}, got) {
		t.Errorf("replace: ids %v", got)
	}

	ext, err := Load(path, def, ModeExtend, invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(ids(def), "u-drop-tax", "u-wrong-amount", "u-ledger-no-key"), ids(ext)); diff != "" {
		t.Errorf("extend: ids (-want +got):\n%s", diff)
	}
	extNil, err := Load(path, nil, ModeExtend, invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ids(ext), ids(extNil)); diff != "" {
		t.Errorf("extend of nil base is not extend of the default (-want +got):\n%s", diff)
	}

	hashes := map[string]string{"default": def.Hash(), "replace": rep.Hash(), "extend": ext.Hash()}
	seen := map[string]string{}
	for name, h := range hashes {
		if len(h) != 64 {
			t.Errorf("%s: hash %q is not hex SHA-256", name, h)
		}
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s have the same hash", name, other)
		}
		seen[h] = name
	}
	if ext.Hash() != extNil.Hash() {
		t.Error("the same catalogue loaded twice hashes differently")
	}

	if _, err := Load(path, def, "merge", invoice.Spec()); err == nil || !strings.Contains(err.Error(), `mode "merge"`) {
		t.Errorf("bad mode: error %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), def, ModeReplace, invoice.Spec()); err == nil {
		t.Error("missing file: no error")
	}
}

func TestLoadExtendDuplicate(t *testing.T) {
	def, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	id := def.Mutants[0].ID
	path := writeFile(t, "user.yaml", "mutants:\n  - id: u1\n    class: context_loss\n    operator: drop_field\n    edge: intake->action\n    field: tax\n  - id: "+id+"\n    class: context_loss\n    operator: drop_field\n    edge: intake->action\n    field: tax\n")
	_, err = Load(path, def, ModeExtend, invoice.Spec())
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	want := &Error{File: path, Pos: input.Pos{Line: 7}, Field: id + ".id", Problem: e.Problem}
	if diff := cmp.Diff(want, e); diff != "" || !strings.Contains(e.Problem, "already in the base catalogue") {
		t.Errorf("error %v (-want +got):\n%s", err, diff)
	}
	if _, err := Load(path, def, ModeReplace, invoice.Spec()); err != nil {
		t.Errorf("replace: the same ids are fine alone: %v", err)
	}
}

func ids(c *Catalogue) []string {
	var out []string
	for _, m := range c.Mutants {
		out = append(out, m.ID)
	}
	return out
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(goodYAML))
	f.Add(invoice.Spec().Catalogue.Data)
	f.Add([]byte("mutants:\n  - id: a\n    value: {x: [1, 2]}\n"))
	f.Add([]byte("mutants: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data, invoice.Spec())
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, m := range c.Mutants {
			if errs := m.Validate(invoice.Spec()); len(errs) > 0 {
				t.Fatalf("parsed an invalid mutant %s: %v", m.ID, errs)
			}
			if seen[m.ID] {
				t.Fatalf("duplicate id %s", m.ID)
			}
			seen[m.ID] = true
			if _, err := m.Seams(invoice.Spec(), nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestParseIntent(t *testing.T) {
	entry := func(intent string) string {
		return "mutants:\n  - id: x\n    class: contract_drift\n    operator: reformat_field\n    edge: action->boundary\n    field: gross\n    format: cents\n    description: d\n" + intent
	}
	for _, tc := range []struct {
		name, yaml string
		want       bool
		wantErr    string
	}{
		{"default is a regression", entry(""), false, ""},
		{"regression", entry("    intent: regression\n"), false, ""},
		{"version change", entry("    intent: version_change\n"), true, ""},
		{"unknown", entry("    intent: refactor\n"), false, `cat.yaml:9:13: x.intent: unknown intent "refactor" (want one of regression, version_change)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := Parse("cat.yaml", []byte(tc.yaml), invoice.Spec())
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cat.Mutants[0].VersionChange(); got != tc.want {
				t.Errorf("VersionChange() = %v, want %v", got, tc.want)
			}
		})
	}
}
