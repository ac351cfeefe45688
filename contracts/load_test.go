package contracts

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission/invoice"
)

const minimal = `edge: a->b
kind: thing.done
version: "1"
owner: b
fields:
  n: {type: number, required: true}
  lines:
    type: array
    items:
      type: object
      fields:
        amount: {type: number}
rules:
  - id: n-positive
    expr: payload.n > 0.0
    message: n must be positive
`

func TestLoadErrors(t *testing.T) {
	// Each case replaces one line of the minimal contract (or adds lines);
	// want is the "file:line: ..." prefix and a fragment of the problem.
	tests := []struct {
		name     string
		src      string
		wantLine string
		wantText string
	}{
		// The YAML parser names the line where the broken construct starts
		// (its count, which can be one short of the editor's).
		{"invalid YAML", "edge: a->b\nkind: [unclosed\n", ":1:", "invalid YAML: did not find expected ',' or ']'"},
		{"invalid YAML without a line", "a: b: c\n", ":1:", "invalid YAML: mapping values are not allowed"},
		{"tab indentation", "edge: a->b\n\tkind: x\n", ":2:", "invalid YAML"},
		{"unknown top-level key", strings.Replace(minimal, "owner: b\n", "owner: b\nowners: [b]\n", 1), ":5:", `unknown key "owners"`},
		{"unknown field key", strings.Replace(minimal, "{type: number, required: true}", "{type: number, requird: true}", 1), ":6:", `fields.n: unknown key "requird"`},
		{"unknown type", strings.Replace(minimal, "{type: number, required: true}", "{type: decimal}", 1), ":6:", `fields.n.type: unknown type "decimal"`},
		{"unknown format", strings.Replace(minimal, "{type: number, required: true}", "{type: string, format: dmy}", 1), ":6:", `unknown format "dmy"`},
		{"key not fit for type", strings.Replace(minimal, "{type: number, required: true}", "{type: number, format: date}", 1), ":6:", "fields.n.format: not allowed on type number"},
		{"enum of the wrong type", strings.Replace(minimal, "{type: number, required: true}", "{type: number, enum: [a]}", 1), ":6:", "not of type number"},
		{"missing owner", strings.Replace(minimal, "owner: b\n", "", 1), ":1:", "owner: required"},
		{"bad edge", strings.Replace(minimal, "edge: a->b", "edge: a-b", 1), ":1:", `edge: "a-b": want from->to`},
		{"version not a string", strings.Replace(minimal, `version: "1"`, `version: 1`, 1), ":3:", "version: want a string"},
		{"duplicate key", strings.Replace(minimal, "owner: b\n", "owner: b\nowner: c\n", 1), ":5:", `duplicate key "owner"`},
		{"bad key template", strings.Replace(minimal, "owner: b\n", "owner: b\nidempotency: {key: \"{kind}\"}\n", 1), ":5:", "must contain {item}"},
		{"bad level", strings.Replace(minimal, "    expr: payload.n > 0.0", "    level: strong\n    expr: payload.n > 0.0", 1), ":15:", `level "strong"`},
		{"CEL does not compile", strings.Replace(minimal, "payload.n > 0.0", "payload.n >", 1), ":15: rule n-positive:", "expr: column"},
		{"CEL undeclared variable", strings.Replace(minimal, "payload.n > 0.0", "amount > 0.0", 1), ":15: rule n-positive:", "undeclared reference"},
		{"CEL not a bool", strings.Replace(minimal, "payload.n > 0.0", "payload.n + 1.0", 1), ":15: rule n-positive:", "want bool"},
		{"rule on an undeclared field", strings.Replace(minimal, "payload.n > 0.0", "payload.gross > 0.0", 1), ":15: rule n-positive:", "payload.gross is not a declared field"},
		{"rule on an undeclared field in has()", strings.Replace(minimal, "payload.n > 0.0", "has(payload.m) || payload.n > 0.0", 1), ":15: rule n-positive:", "payload.m is not a declared field"},
		{"rule on an undeclared field by index", strings.Replace(minimal, "payload.n > 0.0", `payload["m"] > 0.0`, 1), ":15: rule n-positive:", "payload.m is not a declared field"},
		{"rule on an undeclared nested field", strings.Replace(minimal, "payload.n > 0.0", "payload.lines.all(l, l.qty > 0.0)", 1), ":15: rule n-positive:", "payload.lines[].qty is not a declared field"},
		{"rule on a field of a number", strings.Replace(minimal, "payload.n > 0.0", "payload.n.cents > 0", 1), ":15: rule n-positive:", "is a number, it has no fields"},
		{"rule error on the expression's own line", strings.Replace(minimal, "    expr: payload.n > 0.0", "    expr: |\n      payload.n > 0.0 &&\n      payload.x > 0.0", 1), ":17: rule n-positive:", "payload.x is not a declared field"},
		{"duplicate rule id", minimal + "  - id: n-positive\n    expr: payload.n < 9.0\n    message: again\n", ":17: rule n-positive:", "duplicate id (first at line 14)"},
		{"built-in rule id", strings.Replace(minimal, "id: n-positive", "id: owner", 1), ":14: rule owner:", "reserved for a built-in"},
		{"rule without message", strings.Replace(minimal, "    message: n must be positive\n", "", 1), ":14: rule n-positive:", "message: required"},
		{"constant shadows the envelope", strings.Replace(minimal, "fields:\n", "constants: {item: 1}\nfields:\n", 1), ":5:", "constants.item: name is taken"},
		{"escalation ref not a value", strings.Replace(minimal, "owner: b\n", "owner: b\nescalation: {values: [none, open], ref_required: [escalated]}\n", 1), ":5:", `"escalated" is not one of the values`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "edge.yaml", tt.src)
			_, err := Load(p)
			if err == nil {
				t.Fatal("Load: want an error")
			}
			if !strings.Contains(err.Error(), p+tt.wantLine) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Load error\n  %v\nwant %q and %q", err, p+tt.wantLine, tt.wantText)
			}
		})
	}
}

func TestLoadMinimalAndConstants(t *testing.T) {
	src := strings.Replace(minimal, "fields:\n", "constants:\n  limit: 10\n  names: {x: 1.5}\nfields:\n", 1)
	// An int literal compares with a JSON number (a double).
	src = strings.Replace(src, "payload.n > 0.0", `payload.n > 0 && payload.n <= limit && names["x"] > 1.0`, 1)
	p := writeFile(t, t.TempDir(), "a-b.yaml", src)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(n string) []byte {
		return []byte(`{"id":"1","edge":"a->b","kind":"thing.done","schema_version":"1","item":"I","idempotency_key":"I:thing.done","next_owner":["b"],"escalation":"none","payload":{"n":` + n + `}}`)
	}
	if got := s.Check("a->b", msg("5"), LevelSemantic); len(got) != 0 {
		t.Errorf("n=5: %+v", got)
	}
	if diff := cmp.Diff([]string{"n-positive"}, rules(s.Check("a->b", msg("11"), LevelSemantic))); diff != "" {
		t.Errorf("n=11 (-want +got):\n%s", diff)
	}
	c, _ := s.Contract("a->b")
	want := []Rule{{ID: "n-positive", Level: LevelSemantic, Expr: `payload.n > 0 && payload.n <= limit && names["x"] > 1.0`, Message: "n must be positive", Field: "payload.n", Line: 17}}
	if diff := cmp.Diff(want, c.Rules); diff != "" {
		t.Errorf("Rules (-want +got):\n%s", diff)
	}
}

func TestLoadDirMergeHash(t *testing.T) {
	def := defaults(t)

	// The embedded sources written to disk load to the same hash: the hash
	// depends on contents, not paths.
	dir := t.TempDir()
	for name, b := range Sources(invoice.Spec().Contracts) {
		writeFile(t, dir, name, string(b))
	}
	disk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if disk.Hash() != def.Hash() {
		t.Errorf("hash from disk %s != embedded %s", disk.Hash(), def.Hash())
	}
	if len(def.Hash()) != 64 {
		t.Errorf("Hash() = %q, want 64 hex digits", def.Hash())
	}

	// A user's contract for one edge: Load returns only it; Merge puts it
	// over the defaults.
	src := string(Sources(invoice.Spec().Contracts)["intake-action.yaml"])
	src = strings.Replace(src, "gross:          {type: number, required: true, minimum: 0}", "gross:          {type: number, required: true, minimum: 0, maximum: 1000}", 1)
	user := t.TempDir()
	writeFile(t, user, "intake-action.yaml", src)
	writeFile(t, user, "README.txt", "not a contract")
	loaded, err := Load(user)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"intake->action"}, loaded.Edges()); diff != "" {
		t.Errorf("Load edges (-want +got):\n%s", diff)
	}
	merged := def.Merge(loaded)
	if diff := cmp.Diff(def.Edges(), merged.Edges()); diff != "" {
		t.Errorf("Merge edges (-want +got):\n%s", diff)
	}
	if merged.Hash() == def.Hash() {
		t.Error("Merge kept the default hash after replacing a contract")
	}
	raw := marshal(t, invoiceExtracted())
	if got := def.Check("intake->action", raw, LevelSchema); len(got) != 0 {
		t.Errorf("default: %+v", got)
	}
	if diff := cmp.Diff([]string{"range"}, rules(merged.Check("intake->action", raw, LevelSchema))); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}

	// Two files for one edge.
	writeFile(t, user, "again.yml", src)
	if _, err := Load(user); err == nil || !strings.Contains(err.Error(), "already has a contract in") {
		t.Errorf("duplicate edge: got %v", err)
	}
	if _, err := Load(filepath.Join(user, "missing.yaml")); err == nil {
		t.Error("missing file: want an error")
	}
	if _, err := Load(); err == nil {
		t.Error("no paths: want an error")
	}
	empty := t.TempDir()
	if _, err := Load(empty); err == nil {
		t.Error("empty dir: want an error")
	}
}
