package mission

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/internal/jsontext"
)

func mustMessage(tb testing.TB, raw string) *Message {
	tb.Helper()
	m, err := DecodeMessage([]byte(raw))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func mustJSON(tb testing.TB, m *Message) []byte {
	tb.Helper()
	b, err := m.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// checkAgainstStd decodes raw as a message and as encoding/json decodes
// it into a map: both accept or refuse it, the message encodes as the map
// does, and reads back as the map (plainValue).
func checkAgainstStd(t *testing.T, raw []byte) {
	t.Helper()
	var want map[string]any
	stdErr := json.Unmarshal(raw, &want)
	m, err := DecodeMessage(raw)
	if (err != nil) != (stdErr != nil) {
		t.Fatalf("DecodeMessage(%q) error = %v, encoding/json's = %v", raw, err, stdErr)
	}
	if err != nil {
		return
	}
	if want == nil {
		if m != nil {
			t.Fatalf("DecodeMessage(%q) = %v, want nil", raw, m)
		}
		return
	}
	if got, w := string(mustJSON(t, m)), stdMarshal(t, want); got != w {
		t.Fatalf("DecodeMessage(%q) encodes as %s, encoding/json %s", raw, got, w)
	}
	if d := cmp.Diff(any(want), plainValue(m)); d != "" {
		t.Fatalf("DecodeMessage(%q) reads back (-want +got):\n%s", raw, d)
	}
	// A message built from the map the way the emitter copies a result
	// encodes as the map does.
	if got, w := string(mustJSON(t, messageOf(want))), stdMarshal(t, want); got != w {
		t.Fatalf("messageOf(%q) encodes as %s, encoding/json %s", raw, got, w)
	}
}

func TestMessageMatchesStd(t *testing.T) {
	for _, raw := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"a":1,}`, `{"a"}`,
		`{"b":1,"a":2}`,
		`{"a":1,"a":2}`,
		`{"z":{"y":1,"x":[{"q":1,"p":null}],"y":3},"a":"\u00e9\u2028<&>"}`,
		`{"A":1,"a":2,"é":3,"e":4,"":5}`,
		` { "payload" : { "amount" : 1.50e2 , "lines" : [ ] } } `,
		`{"a":{},"b":[[],{}],"c":true,"d":false,"e":-0,"f":1e400}`,
		`{"dup":{"x":1},"dup":{"y":2}}`,
		`{"k\"\u0001\u007f\u2028":1,"\\":{"<>&":2}}`,
	} {
		checkAgainstStd(t, []byte(raw))
	}
}

func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":2,"a":3}`,
		`{"edge":"a->b","payload":{"x":"\ud800","lines":[{"n":1},{"n":2,"n":3}]}}`,
		`{"k":"\"\\\/\b\f\n\r\t","z":[1,2.5,-3e-7,true,null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkAgainstStd(t, raw) })
}

// TestMessageCopyOnWrite: a change to a clone or to an object Object
// hands out leaves the original (and the decoded message other parsers
// share) as it was, and shows in the message changed.
func TestMessageCopyOnWrite(t *testing.T) {
	const orig = `{"escalation":"requested","next_owner":["b"],"payload":{"amount":10,"date":"2026-01-02"}}`
	for _, tc := range []struct {
		name   string
		change func(m *Message)
		want   string
	}{
		{"set the envelope", func(m *Message) { m.Set("escalation", "escalated") },
			`{"escalation":"escalated","next_owner":["b"],"payload":{"amount":10,"date":"2026-01-02"}}`},
		{"add a field", func(m *Message) { m.Set("escalation_ref", "") },
			`{"escalation":"requested","escalation_ref":"","next_owner":["b"],"payload":{"amount":10,"date":"2026-01-02"}}`},
		{"delete a payload field", func(m *Message) { m.Object("payload").Delete("amount") },
			`{"escalation":"requested","next_owner":["b"],"payload":{"date":"2026-01-02"}}`},
		{"rename a payload field", func(m *Message) {
			p := m.Object("payload")
			v, _ := p.Get("amount")
			p.Set("total", v)
			p.Delete("amount")
		}, `{"escalation":"requested","next_owner":["b"],"payload":{"date":"2026-01-02","total":10}}`},
		{"two changes through Object", func(m *Message) {
			m.Object("payload").Set("amount", 1000.0)
			m.Object("payload").Set("a", "first")
		}, `{"escalation":"requested","next_owner":["b"],"payload":{"a":"first","amount":1000,"date":"2026-01-02"}}`},
		{"change after a clone", func(m *Message) {
			p := m.Object("payload")
			p.Set("amount", 1.0)
			_ = m.Clone()
			m.Object("payload").Set("amount", 2.0)
		}, `{"escalation":"requested","next_owner":["b"],"payload":{"amount":2,"date":"2026-01-02"}}`},
		{"delete what is not there", func(m *Message) { m.Delete("nope"); m.Object("payload").Delete("nope") }, orig},
		{"Object of a non-object", func(m *Message) {
			if m.Object("next_owner") != nil || m.Object("nope") != nil {
				t.Error("Object of a list or a missing key is not nil")
			}
		}, orig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := mustMessage(t, orig)
			view := &Message{fields: shared.fields} // as a parser gets the decoded message
			cl := view.Clone()
			tc.change(view)
			if d := cmp.Diff(tc.want, string(mustJSON(t, view))); d != "" {
				t.Errorf("changed message (-want +got):\n%s", d)
			}
			for name, m := range map[string]*Message{"shared": shared, "clone": cl} {
				if d := cmp.Diff(orig, string(mustJSON(t, m))); d != "" {
					t.Errorf("%s message changed (-want +got):\n%s", name, d)
				}
			}
			if got, want := view.Equal(shared), tc.want == orig; got != want {
				t.Errorf("Equal = %v, want %v", got, want)
			}
			// The other way round: the clone changed, the view not.
			cl2 := shared.Clone()
			tc.change(cl2)
			if d := cmp.Diff(orig, string(mustJSON(t, shared))); d != "" {
				t.Errorf("shared message changed by its clone (-want +got):\n%s", d)
			}
		})
	}
}

func TestMessageGetAll(t *testing.T) {
	m := mustMessage(t, `{"c":3,"a":1,"b":{"x":true}}`)
	var keys []string
	for k := range m.All() {
		keys = append(keys, k)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, keys); d != "" {
		t.Errorf("All keys (-want +got):\n%s", d)
	}
	if v, ok := m.Get("b"); !ok || v.(*Message).Len() != 1 {
		t.Errorf("Get(b) = %v, %v", v, ok)
	}
	if _, ok := m.Get("d"); ok {
		t.Error("Get(d) found a field")
	}
	var nilMsg *Message
	if _, ok := nilMsg.Get("a"); ok || nilMsg.Len() != 0 {
		t.Error("a nil message has fields")
	}
}

// readPayloadMap is the parser's reading before messages: it rewrites a
// decoded map in place, in the view's order (so a date defaulting from a
// field the view reads first sees that field as read).
func readPayloadMap(specs []Field, payload map[string]any, day string) map[string]any {
	out := payload
	if out == nil {
		out = make(map[string]any, len(specs))
	}
	for i := range specs {
		f := &specs[i]
		v, present := payload[f.Name]
		if read, keep := readField(f, v, present, payload[f.DefaultFrom], day); !keep {
			out[f.Name] = read
		}
	}
	for k := range out {
		if !inView(specs, k) {
			delete(out, k)
		}
	}
	return out
}

func inView(specs []Field, name string) bool {
	for i := range specs {
		if specs[i].Name == name {
			return true
		}
	}
	return false
}

// testView has every field type, a date defaulting from a date read
// before it and one from a date read after it, and a name twice.
var testView = []Field{
	{Name: "sent", Type: FieldDate, DefaultDays: 1},
	{Name: "due", Type: FieldDate, DefaultDays: 30, DefaultFrom: "sent"},
	{Name: "paid", Type: FieldDate, DefaultDays: 2, DefaultFrom: "zdate"},
	{Name: "zdate", Type: FieldDate},
	{Name: "currency", Type: FieldString, Default: "EUR"},
	{Name: "amount", Type: FieldNumber},
	{Name: "urgent", Type: FieldBool},
	{Name: "flags", Type: FieldStrings},
	{Name: "lines", Type: FieldObjects, Fields: []Field{{Name: "sku"}, {Name: "qty", Type: FieldNumber}, {Name: "gift", Type: FieldBool}}},
	{Name: "amount", Type: FieldNumber},
}

// checkReadPayload: reading a decoded message gives what reading the
// decoded map in place gave.
func checkReadPayload(t *testing.T, raw []byte) {
	t.Helper()
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	msg, err := DecodeMessage(raw)
	if err != nil {
		t.Fatalf("DecodeMessage(%q): %v", raw, err)
	}
	tb := &tables{views: map[string][]Field{"k": testView}}
	tb.orderViews()
	want := readPayloadMap(testView, m, "2026-03-04")
	got := readPayload(testView, tb.keyOrder["k"], msg, "2026-03-04")
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("readPayload(%s) (-want +got):\n%s", raw, d)
	}
}

func TestReadPayloadAsBefore(t *testing.T) {
	for _, raw := range []string{
		`{}`, `null`,
		`{"sent":"2026-01-02","due":"bad","paid":"","zdate":"03/04/2026","extra":1}`,
		`{"sent":"x","due":null,"amount":"1.234,5","currency":7,"urgent":"true","flags":["a",1,"b"]}`,
		`{"lines":[{"sku":"a","qty":2,"gift":false},{"sku":1},[],"x"],"flags":"a","currency":""}`,
		`{"lines":[{"sku":"a","qty":2,"gift":false}],"flags":[],"amount":5,"urgent":false}`,
	} {
		checkReadPayload(t, []byte(raw))
	}
}

func FuzzReadPayload(f *testing.F) {
	f.Add([]byte(`{"sent":"02/01/2026","due":"","lines":[{"qty":"3"}],"amount":true}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkReadPayload(t, raw) })
}

// benchEnvelope is the document of jsontext's BenchmarkEncodeEnvelope and
// BenchmarkDecodeObject, for comparing a message with a map.
const benchEnvelope = `{"edge":"intake->match","escalation":"none","escalation_ref":"","id":"m-inv-1-intake->match-1",` +
	`"idempotency_key":"inv-1:invoice","item":"inv-1","kind":"invoice","next_owner":["match"],"payload":{"currency":"EUR",` +
	`"due_date":"2026-02-01","email_id":"e-1","gross":119,"invoice_date":"2026-01-02","invoice_number":"INV-1",` +
	`"lines":[{"qty":2,"sku":"a"}],"net":100,"tax":19},"schema_version":"1"}`

// BenchmarkMessageEncode writes the envelope as a message and as the map
// it stands for.
func BenchmarkMessageEncode(b *testing.B) {
	m := mustMessage(b, benchEnvelope)
	for _, bc := range []struct {
		name string
		v    any
	}{{"message", m}, {"map", plainValue(m)}} {
		b.Run(bc.name, func(b *testing.B) {
			e := jsontext.GetEncoder()
			defer jsontext.PutEncoder(e)
			b.ReportAllocs()
			for b.Loop() {
				_ = e.Encode(bc.v)
			}
		})
	}
}

// BenchmarkMessageDecode reads the envelope as a message and as a map.
func BenchmarkMessageDecode(b *testing.B) {
	doc := []byte(benchEnvelope)
	b.Run("message", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeMessage(doc, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsontext.DecodeObject(doc, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
