package mission

import (
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

// Clone returns a deep copy of the scenario.
func (sc *Scenario) Clone() *Scenario {
	c := *sc
	c.Tags = slices.Clone(sc.Tags)
	c.Initial = cloneScenarioState(sc.Initial)
	c.Emails = slices.Clone(sc.Emails)
	for i := range c.Emails {
		if a := c.Emails[i].Attachment; a != nil {
			d := *a
			d.Lines = slices.Clone(a.Lines)
			c.Emails[i].Attachment = &d
		}
	}
	c.Expect.Items = cloneExpectedItems(sc.Expect.Items)
	c.Expect.Report = slices.Clone(sc.Expect.Report)
	c.Golden = slices.Clone(sc.Golden)
	for i := range c.Golden {
		g := &c.Golden[i]
		g.Input.Messages = cloneByteSlices(g.Input.Messages)
		g.Calls = slices.Clone(g.Calls)
		for j := range g.Calls {
			g.Calls[j].Args = cloneAnyValue(map[string]any(g.Calls[j].Args)).(map[string]any)
		}
		if g.Result != nil {
			g.Result = cloneAnyValue(map[string]any(g.Result)).(map[string]any)
		}
		if g.Emitted != nil {
			m := make(map[string][]byte, len(g.Emitted))
			for k, b := range g.Emitted {
				m[k] = slices.Clone(b)
			}
			g.Emitted = m
		}
	}
	return &c
}

func cloneExpectedItems(items []sandbox.ExpectedItem) []sandbox.ExpectedItem {
	out := slices.Clone(items)
	for i := range out {
		out[i].Alternatives = cloneExpectedItems(out[i].Alternatives)
	}
	return out
}

func cloneByteSlices(l [][]byte) [][]byte {
	if l == nil {
		return nil
	}
	out := make([][]byte, len(l))
	for i, b := range l {
		out[i] = slices.Clone(b)
	}
	return out
}

func cloneScenarioState(s sandbox.State) sandbox.State {
	c := s
	c.Suppliers = slices.Clone(s.Suppliers)
	c.PurchaseOrders = slices.Clone(s.PurchaseOrders)
	for i := range c.PurchaseOrders {
		c.PurchaseOrders[i].Lines = slices.Clone(s.PurchaseOrders[i].Lines)
	}
	c.GoodsReceipts = slices.Clone(s.GoodsReceipts)
	c.Invoices = slices.Clone(s.Invoices)
	c.Matches = slices.Clone(s.Matches)
	c.Ledger = slices.Clone(s.Ledger)
	c.Approvals = slices.Clone(s.Approvals)
	c.Payments = slices.Clone(s.Payments)
	c.Escalations = slices.Clone(s.Escalations)
	c.Rejections = slices.Clone(s.Rejections)
	c.Closures = slices.Clone(s.Closures)
	c.Reports = slices.Clone(s.Reports)
	for i := range c.Reports {
		c.Reports[i].Entries = slices.Clone(s.Reports[i].Entries)
	}
	c.Log = slices.Clone(s.Log)
	return c
}

func cloneAnyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneAnyValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = cloneAnyValue(e)
		}
		return l
	case []byte:
		return slices.Clone(x)
	}
	return v
}
