package invoice

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/baton-lab/baton/internal/jsontext"
)

// AppendJSON appends the JSON encoding of st to b, byte for byte what
// json.Marshal(st) returns, and returns the extended buffer. An experiment
// hashes the end state of every integrated run, so the records are written
// field by field instead of through reflection. Like json.Marshal it fails
// on a NaN or infinite number, returning b unchanged.
func (st *Records) AppendJSON(b []byte) ([]byte, error) { return st.appendJSON(b, nil) }

// AppendJSONMemo is [Records.AppendJSON] with a memo the caller keeps in
// *memo between calls (nil at the first): the bytes of recent master data
// (suppliers, purchase orders, goods receipts), which a scenario sets up
// and no tool writes, reused for master data equal field by field,
// numbers bit for bit. The bytes are the same as AppendJSON's. A memo
// must not be used by two goroutines at once.
func (st *Records) AppendJSONMemo(b []byte, memo *any) ([]byte, error) {
	mm, _ := (*memo).(*masterMemo)
	if mm == nil {
		mm = new(masterMemo)
		*memo = mm
	}
	return st.appendJSON(b, mm)
}

func (st *Records) appendJSON(b []byte, mm *masterMemo) ([]byte, error) {
	start := len(b)
	w := stateWriter{b: b, master: mm}
	w.state(st)
	if w.err != nil {
		return b[:start], w.err
	}
	return w.b, nil
}

// stateWriter writes Records as encoding/json does (HTML escaping on).
type stateWriter struct {
	b      []byte
	err    error
	master *masterMemo // nil: master data written afresh
}

func (w *stateWriter) key(k string, first bool) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *stateWriter) str(k, v string, first bool) {
	w.key(k, first)
	w.b = appendJSONString(w.b, v)
}

func (w *stateWriter) num(k string, v float64, first bool) {
	w.key(k, first)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if w.err == nil {
			w.err = &json.UnsupportedValueError{Value: reflect.ValueOf(v), Str: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		return
	}
	w.b = jsontext.AppendFloat(w.b, v)
}

// list writes a slice field: null when nil, else its elements by each.
func writeList[T any](w *stateWriter, k string, s []T, first bool, each func(*T)) {
	w.key(k, first)
	if s == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i := range s {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '{')
		each(&s[i])
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
}

func (w *stateWriter) state(st *Records) {
	if st == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '{')
	if w.master == nil {
		w.masterData(st)
	} else if json := w.master.find(st); json != nil {
		w.b = append(w.b, json...)
	} else {
		from := len(w.b)
		if w.masterData(st); w.err == nil {
			w.master.add(st, w.b[from:])
		}
	}
	w.transactions(st)
	w.b = append(w.b, '}')
}

// masterData writes what a scenario sets up: suppliers, orders, receipts.
func (w *stateWriter) masterData(st *Records) {
	writeList(w, "suppliers", st.Suppliers, true, func(s *Supplier) {
		w.str("id", s.ID, true)
		w.str("name", s.Name, false)
		w.str("email", s.Email, false)
		w.str("bank_account", s.BankAccount, false)
		w.str("currency", s.Currency, false)
	})
	writeList(w, "purchase_orders", st.PurchaseOrders, false, func(p *PurchaseOrder) {
		w.str("number", p.Number, true)
		w.str("supplier_id", p.SupplierID, false)
		w.str("currency", p.Currency, false)
		writeList(w, "lines", p.Lines, false, func(l *POLine) {
			w.str("sku", l.SKU, true)
			w.num("qty", l.Qty, false)
			w.num("unit_price", l.UnitPrice, false)
		})
	})
	writeList(w, "goods_receipts", st.GoodsReceipts, false, func(g *GoodsReceipt) {
		w.str("id", g.ID, true)
		w.str("po_number", g.PONumber, false)
		w.str("sku", g.SKU, false)
		w.num("qty", g.Qty, false)
	})
}

// transactions writes what the agents write: invoices and everything
// that follows from them.
func (w *stateWriter) transactions(st *Records) {
	writeList(w, "invoices", st.Invoices, false, func(v *Invoice) {
		w.str("id", v.ID, true)
		w.str("email_id", v.EmailID, false)
		w.str("supplier_id", v.SupplierID, false)
		w.str("number", v.Number, false)
		w.str("po_number", v.PONumber, false)
		w.str("doc_type", v.DocType, false)
		w.str("currency", v.Currency, false)
		w.num("net", v.Net, false)
		w.num("tax", v.Tax, false)
		w.num("gross", v.Gross, false)
		w.str("invoice_date", v.InvoiceDate, false)
		w.str("due_date", v.DueDate, false)
		w.str("bank_account", v.BankAccount, false)
		w.str("status", v.Status, false)
	})
	writeList(w, "matches", st.Matches, false, func(m *Match) {
		w.str("id", m.ID, true)
		w.str("invoice_id", m.InvoiceID, false)
		w.str("po_number", m.PONumber, false)
		w.str("status", m.Status, false)
		w.num("variance", m.Variance, false)
		w.str("reason", m.Reason, false)
	})
	writeList(w, "ledger", st.Ledger, false, func(p *Posting) {
		w.str("id", p.ID, true)
		w.str("invoice_id", p.InvoiceID, false)
		w.str("account", p.Account, false)
		w.num("amount", p.Amount, false)
		w.str("currency", p.Currency, false)
	})
	writeList(w, "approvals", st.Approvals, false, func(a *Approval) {
		w.str("id", a.ID, true)
		w.str("invoice_id", a.InvoiceID, false)
		w.num("amount_eur", a.AmountEUR, false)
	})
	writeList(w, "payments", st.Payments, false, func(p *Payment) {
		w.str("id", p.ID, true)
		w.str("invoice_id", p.InvoiceID, false)
		w.str("supplier_id", p.SupplierID, false)
		w.num("amount", p.Amount, false)
		w.str("currency", p.Currency, false)
		w.str("due_date", p.DueDate, false)
		w.str("bank_account", p.BankAccount, false)
	})
	writeList(w, "escalations", st.Escalations, false, func(e *Escalation) {
		w.str("id", e.ID, true)
		w.str("item", e.Item, false)
		w.str("reason", e.Reason, false)
	})
	writeList(w, "rejections", st.Rejections, false, func(r *Rejection) {
		w.str("id", r.ID, true)
		w.str("item", r.Item, false)
		w.str("reason", r.Reason, false)
	})
	writeList(w, "closures", st.Closures, false, func(c *Closure) {
		w.str("id", c.ID, true)
		w.str("item", c.Item, false)
		w.str("reason", c.Reason, false)
	})
	writeList(w, "reports", st.Reports, false, func(r *Report) {
		w.str("id", r.ID, true)
		w.str("day", r.Day, false)
		writeList(w, "entries", r.Entries, false, func(e *ReportEntry) {
			w.str("item", e.Item, true)
			w.str("kind", e.Kind, false)
			w.str("reason", e.Reason, false)
		})
	})
}

// appendJSONString writes s as encoding/json writes a string with HTML
// escaping on (json.Marshal's default).
func appendJSONString(b []byte, s string) []byte { return jsontext.AppendString(b, s, true) }
