package invoice

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// TestDocMemoRunsApart runs every scenario through one mission value in
// turns that read its documents differently (clean; misreading and
// misclassifying every email; a build whose Emit seam writes into the
// payload's lines, in place and through the message) and checks each
// run's trace against the same run on a mission value of its own: what
// intake shares of a document leaks nothing from one run into another.
func TestDocMemoRunsApart(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	scs = append(testScenarios(t), scs...)
	mangle := hook{emit: func(_ mission.Edge, msg *mission.Message) {
		p := msg.Object("payload")
		v, _ := p.Get("lines")
		lines, _ := v.([]any)
		for i, l := range lines {
			if o, ok := l.(*mission.Message); ok {
				o.Set("amount", -1.0)
				o.Delete("sku")
			}
			lines[i] = "mangled" // in place, against the rules
		}
		p.Set("currency", "XXX")
	}}
	slips := mission.Profile{Intake: {Misread: 1, Misclassify: 0.3}}
	runs := []struct {
		name  string
		build func() mission.Build
		env   mission.Env
	}{
		{"clean", mission.Clean, mission.Env{Faults: protocolFaults}},
		{"slips", mission.Clean, mission.Env{Faults: protocolFaults, Profile: slips}},
		{"mangled", func() mission.Build { return mission.NewBuild(mangle, &mission.Oracle{}) }, mission.Env{}},
		{"clean again", mission.Clean, mission.Env{Faults: protocolFaults}},
	}
	shared := New()
	for i, sc := range scs {
		for _, r := range runs {
			seed := uint64(i)
			got := mustJSONL(t, mustRun(shared, r.build(), sc, seed, r.env).Trace)
			want := mustJSONL(t, mustRun(New(), r.build(), sc, seed, r.env).Trace)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %s: the trace through a shared mission differs from a fresh mission's", sc.ID, r.name)
			}
		}
	}
}

// TestDocMemoChangedDocument changes a document after a run has read it:
// the next run reads the change, as a fresh mission does.
func TestDocMemoChangedDocument(t *testing.T) {
	sc := scenarioByID(t, "T2")
	m := New()
	mustRun(m, mission.Clean(), sc, 1, mission.Env{})
	changed := *sc
	changed.Inputs = append([]mission.Input(nil), sc.Inputs...)
	n := 0
	for i := range changed.Inputs {
		d := document(&changed.Inputs[i])
		if d == nil || len(d.Lines) == 0 {
			continue
		}
		// Change the document in place, as if its scenario had been
		// edited: the same pointer, other lines and currency.
		d.Lines = append([]DocLine(nil), d.Lines...)
		old := *d
		d.Lines[0].Amount = math.Copysign(0, -1)
		d.Currency = "CHF"
		defer func() { *d = old }()
		n++
	}
	if n == 0 {
		t.Fatal("T2 has no document with lines")
	}
	got := mustJSONL(t, mustRun(m, mission.Clean(), &changed, 1, mission.Env{}).Trace)
	want := mustJSONL(t, mustRun(New(), mission.Clean(), &changed, 1, mission.Env{}).Trace)
	if !bytes.Equal(got, want) {
		t.Error("after a change to a document, the shared mission's trace differs from a fresh mission's")
	}
	if !bytes.Contains(got, []byte(`"amount":-0`)) {
		t.Error("the changed line's amount (-0) is not in the trace")
	}
}

// TestSameDocumentEveryField changes each field of a document (and of a
// line) in turn: sameDocument tells every change.
func TestSameDocumentEveryField(t *testing.T) {
	base := Document{Type: "invoice", SupplierName: "a", InvoiceNumber: "b", PONumber: "c", Currency: "EUR",
		Net: 1, Tax: 2, Gross: 3, InvoiceDate: "2026-01-01", DueDate: "2026-02-01", BankAccount: "d",
		Lines: []DocLine{{SKU: "e", Description: "f", Qty: 1, UnitPrice: 2, Amount: 2}}}
	changes := 0
	change := func(v reflect.Value) {
		changeField(t, v)
		changes++
	}
	check := func(name string, d *Document) {
		if sameDocument(&base, d) {
			t.Errorf("changing %s: sameDocument says equal", name)
		}
	}
	dt := reflect.TypeFor[Document]()
	for i := range dt.NumField() {
		d := base
		d.Lines = append([]DocLine(nil), base.Lines...)
		change(reflect.ValueOf(&d).Elem().Field(i))
		check(dt.Field(i).Name, &d)
	}
	lt := reflect.TypeFor[DocLine]()
	for i := range lt.NumField() {
		d := base
		d.Lines = append([]DocLine(nil), base.Lines...)
		change(reflect.ValueOf(&d.Lines[0]).Elem().Field(i))
		check("Lines[0]."+lt.Field(i).Name, &d)
	}
	zero := base
	zero.Lines = []DocLine{base.Lines[0]}
	zero.Lines[0].Amount, zero.Net = 0, 0
	negZero := zero
	negZero.Lines = []DocLine{zero.Lines[0]}
	negZero.Lines[0].Amount = math.Copysign(0, -1)
	if sameDocument(&zero, &negZero) {
		t.Error("sameDocument says 0 and -0 are the same amount")
	}
	if !sameDocument(&base, &Document{Type: base.Type, SupplierName: base.SupplierName, InvoiceNumber: base.InvoiceNumber,
		PONumber: base.PONumber, Currency: base.Currency, Net: base.Net, Tax: base.Tax, Gross: base.Gross,
		InvoiceDate: base.InvoiceDate, DueDate: base.DueDate, BankAccount: base.BankAccount,
		Lines: append([]DocLine(nil), base.Lines...)}) {
		t.Error("sameDocument says a copy differs")
	}
	if changes != dt.NumField()+lt.NumField() {
		t.Errorf("%d changes, want %d", changes, dt.NumField()+lt.NumField())
	}
}

// changeField changes a string, number or slice field to another value:
// a letter added, the sign turned (1 to -1, 0 to -0), an element repeated.
func changeField(tb testing.TB, v reflect.Value) {
	tb.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Float64:
		v.SetFloat(-v.Float())
	case reflect.Slice:
		v.Set(reflect.Append(v, v.Index(0)))
	default:
		tb.Fatalf("no change for a %s", v.Kind())
	}
}
