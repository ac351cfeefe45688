package contracts

import (
	"fmt"
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
	// want is the whole error: one line naming file, line (and column,
	// where known) and field. The YAML parser names the line where a
	// broken construct starts (its count, which can be one short of the
	// editor's).
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"invalid YAML", "edge: a->b\nkind: [unclosed\n", "edge.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"invalid YAML without a line", "a: b: c\n", "edge.yaml:1: invalid YAML: mapping values are not allowed in this context"},
		{"tab indentation", "edge: a->b\n\tkind: x\n", "edge.yaml:2: invalid YAML: found a tab character that violates indentation"},
		{"unknown top-level key", strings.Replace(minimal, "owner: b\n", "owner: b\nowners: [b]\n", 1), "edge.yaml:5:1: owners: unknown field, did you mean \"owner\"? (want one of edge, kind, version, owner, description, per_item, closed, idempotency, escalation, constants, fields, rules)"},
		{"unknown field key", strings.Replace(minimal, "{type: number, required: true}", "{type: number, requird: true}", 1), "edge.yaml:6:21: fields.n.requird: unknown field, did you mean \"required\"? (want one of type, required, nullable, allow_empty, description, enum, format, pattern, minimum, maximum, exclusive_minimum, exclusive_maximum, min_length, max_length, min_items, max_items, items, fields)"},
		{"unknown type", strings.Replace(minimal, "{type: number, required: true}", "{type: decimal}", 1), "edge.yaml:6:13: fields.n.type: unknown type \"decimal\" (want one of string, number, integer, boolean, array, object, any)"},
		{"unknown format", strings.Replace(minimal, "{type: number, required: true}", "{type: string, format: dmy}", 1), "edge.yaml:6:29: fields.n.format: unknown format \"dmy\" (want one of date, date-time, time, duration, email, hostname, ipv4, ipv6, uri, uri-reference, uuid, regex)"},
		{"key not fit for type", strings.Replace(minimal, "{type: number, required: true}", "{type: number, format: date}", 1), "edge.yaml:6:29: fields.n.format: not allowed on type number"},
		{"enum of the wrong type", strings.Replace(minimal, "{type: number, required: true}", "{type: number, enum: [a]}", 1), "edge.yaml:6:28: fields.n.enum[0]: \"a\" is not of type number"},
		{"missing owner", strings.Replace(minimal, "owner: b\n", "", 1), "edge.yaml:1:1: owner: missing (required)"},
		{"bad edge", strings.Replace(minimal, "edge: a->b", "edge: a-b", 1), "edge.yaml:1:7: edge: \"a-b\": want from->to"},
		{"version not a string", strings.Replace(minimal, `version: "1"`, `version: true`, 1), "edge.yaml:3:10: version: want a string, got boolean true"},
		{"duplicate key", strings.Replace(minimal, "owner: b\n", "owner: b\nowner: c\n", 1), "edge.yaml:5:1: owner: duplicate key (first at line 4)"},
		{"bad key template", strings.Replace(minimal, "owner: b\n", "owner: b\nidempotency: {key: \"{kind}\"}\n", 1), "edge.yaml:5:20: idempotency.key: template \"{kind}\": must contain {item}, or keys are not per item"},
		{"bad level", strings.Replace(minimal, "    expr: payload.n > 0.0", "    level: strong\n    expr: payload.n > 0.0", 1), "edge.yaml:15:12: rules[0].level: level \"strong\": want schema, ownership or semantic"},
		{"CEL does not compile", strings.Replace(minimal, "payload.n > 0.0", "payload.n >", 1), "edge.yaml:15: rules[0].expr: column 12: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER} (rule n-positive)"},
		{"CEL undeclared variable", strings.Replace(minimal, "payload.n > 0.0", "amount > 0.0", 1), "edge.yaml:15: rules[0].expr: column 1: undeclared reference to 'amount' (rule n-positive)"},
		{"CEL not a bool", strings.Replace(minimal, "payload.n > 0.0", "payload.n + 1.0", 1), "edge.yaml:15: rules[0].expr: returns double, want bool (rule n-positive)"},
		{"rule on an undeclared field", strings.Replace(minimal, "payload.n > 0.0", "payload.gross > 0.0", 1), "edge.yaml:15: rules[0].expr: payload.gross is not a declared field (declared: n, lines) (rule n-positive)"},
		{"rule on an undeclared field in has()", strings.Replace(minimal, "payload.n > 0.0", "has(payload.m) || payload.n > 0.0", 1), "edge.yaml:15: rules[0].expr: payload.m is not a declared field (declared: n, lines) (rule n-positive)"},
		{"rule on an undeclared field by index", strings.Replace(minimal, "payload.n > 0.0", `payload["m"] > 0.0`, 1), "edge.yaml:15: rules[0].expr: payload.m is not a declared field (declared: n, lines) (rule n-positive)"},
		{"rule on an undeclared nested field", strings.Replace(minimal, "payload.n > 0.0", "payload.lines.all(l, l.qty > 0.0)", 1), "edge.yaml:15: rules[0].expr: payload.lines[].qty is not a declared field (declared: amount) (rule n-positive)"},
		{"rule on a field of a number", strings.Replace(minimal, "payload.n > 0.0", "payload.n.cents > 0", 1), "edge.yaml:15: rules[0].expr: payload.n.cents: payload.n is a number, it has no fields (rule n-positive)"},
		{"rule error on the expression's own line", strings.Replace(minimal, "    expr: payload.n > 0.0", "    expr: |\n      payload.n > 0.0 &&\n      payload.x > 0.0", 1), "edge.yaml:17: rules[0].expr: payload.x is not a declared field (declared: n, lines) (rule n-positive)"},
		{"duplicate rule id", minimal + "  - id: n-positive\n    expr: payload.n < 9.0\n    message: again\n", "edge.yaml:17:9: rules[1].id: duplicate id \"n-positive\" (first at line 14)"},
		{"built-in rule id", strings.Replace(minimal, "id: n-positive", "id: owner", 1), "edge.yaml:14:9: rules[0].id: \"owner\" is reserved for a built-in check"},
		{"rule without message", strings.Replace(minimal, "    message: n must be positive\n", "", 1), "edge.yaml:14:5: rules[0].message: missing (required)"},
		{"constant shadows the envelope", strings.Replace(minimal, "fields:\n", "constants: {item: 1}\nfields:\n", 1), "edge.yaml:5:19: constants.item: name is taken by an envelope variable or a helper"},
		{"escalation ref not a value", strings.Replace(minimal, "owner: b\n", "owner: b\nescalation: {values: [none, open], ref_required: [escalated]}\n", 1), "edge.yaml:5:51: escalation.ref_required[0]: \"escalated\" is not one of the values [none open]"},
		// Accepted silently before, or unlocated (issue 23, items 3, 9, 10, 11).
		{"minimum above maximum", strings.Replace(minimal, "{type: number, required: true}", "{type: number, minimum: 10, maximum: 1}", 1), "edge.yaml:6:30: fields.n.minimum: 10 is above maximum 1: no value fits"},
		{"exclusive bounds leave nothing", strings.Replace(minimal, "{type: number, required: true}", "{type: number, exclusive_minimum: 1, exclusive_maximum: 1}", 1), "edge.yaml:6:40: fields.n.exclusive_minimum: 1 leaves no value below exclusive_maximum 1"},
		{"min_length above max_length", strings.Replace(minimal, "{type: number, required: true}", "{type: string, min_length: 5, max_length: 2}", 1), "edge.yaml:6:33: fields.n.min_length: 5 is above max_length 2: no value fits"},
		{"negative max_items", strings.Replace(minimal, "    type: array\n", "    type: array\n    max_items: -1\n", 1), "edge.yaml:9:16: fields.lines.max_items: -1: want 0 or more"},
		{"rule field not declared", strings.Replace(minimal, "    message: n must be positive\n", "    message: n must be positive\n    field: payload.m\n", 1), `edge.yaml:17:12: rules[0].field: unknown field "payload.m", did you mean "payload.n"?`},
		{"rule field a typo", strings.Replace(minimal, "    message: n must be positive\n", "    message: n must be positive\n    field: payload.lines[].amont\n", 1), `edge.yaml:17:12: rules[0].field: unknown field "payload.lines[].amont", did you mean "payload.lines[].amount"?`},
		{"minimum .nan", strings.Replace(minimal, "{type: number, required: true}", "{type: number, minimum: .nan}", 1), "edge.yaml:6:30: fields.n.minimum: want a finite number, got .nan"},
		{"maximum .Inf", strings.Replace(minimal, "{type: number, required: true}", "{type: number, maximum: .Inf}", 1), "edge.yaml:6:30: fields.n.maximum: want a finite number, got .Inf"},
		{"constant -.inf", strings.Replace(minimal, "fields:\n", "constants: {limit: -.inf}\nfields:\n", 1), "edge.yaml:5:20: constants.limit: want a finite number, got -.inf"},
		{"enum .NaN", strings.Replace(minimal, "{type: number, required: true}", "{type: number, enum: [1, .NaN]}", 1), "edge.yaml:6:31: fields.n.enum[1]: want a finite number, got .NaN"},
		{"document null", "~\n", "edge.yaml:1:1: (top level): want a mapping, got null"},
		{"empty file", "", "edge.yaml:1: empty contract"},
		{"binary", "edge: a->b\x00\x01\n", "edge.yaml:1:11: control character U+0000: not allowed in YAML (is it a text file?)"},
		{"invalid UTF-8", "edge: a\xc3->b\n", "edge.yaml:1:8: invalid UTF-8 (byte 0xc3): not a text file"},
		{"two documents", minimal + "---\n" + minimal, "edge.yaml:17: more than one YAML document (want one per file)"},
		{"too many fields", "edge: a->b\nkind: k\nversion: \"1\"\nowner: b\nfields:\n" + manyFields(MaxContractFields+1), "edge.yaml:1006:10: fields.f1000: more than 1000 fields in one contract: split it"},
		{"a huge value is not echoed whole", strings.Replace(minimal, "edge: a->b", "edge: "+strings.Repeat("x", 5000), 1), `edge.yaml:1:7: edge: "` + strings.Repeat("x", 64) + `"… (5000 bytes): want from->to`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "edge.yaml", tt.src)
			_, err := Load(p)
			if err == nil {
				t.Fatal("Load: want an error")
			}
			if got := strings.ReplaceAll(err.Error(), p, "edge.yaml"); got != "load contracts: "+tt.want {
				t.Errorf("Load error\n got %s\nwant load contracts: %s", got, tt.want)
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

// manyFields writes n numeric fields f0, f1, … as contract YAML.
func manyFields(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  f%d: {type: number}\n", i)
	}
	return b.String()
}

func TestLoadTooManyFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxContractFiles + 1 {
		writeFile(t, dir, fmt.Sprintf("c%03d.yaml", i), "edge: a->b\n")
	}
	_, err := Load(dir)
	want := "load contracts: " + dir + ": more than 200 contract files"
	if err == nil || err.Error() != want {
		t.Errorf("Load: %v, want %s", err, want)
	}
}
