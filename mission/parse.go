package mission

import "fmt"

// fieldType says how a parser reads a payload field.
type fieldType uint8

const (
	fString fieldType = iota
	fNumber
	fDate // YYYY-MM-DD, or "" when unreadable
	fDue  // a date defaulting to invoice_date + 30 days, else the day + 30
	fBool
	fFlags
	fLines
)

// fieldSpec is one payload field a consumer reads, with its silent default.
type fieldSpec struct {
	name string
	typ  fieldType
	def  string // default of a string field
}

// views lists, per message kind, the fields a consumer reads as that kind.
var views = map[string][]fieldSpec{
	KindInvoiceExtracted: {
		{"email_id", fString, ""}, {"doc_type", fString, DocInvoice}, {"supplier_id", fString, ""},
		{"supplier_name", fString, ""}, {"invoice_number", fString, ""}, {"po_number", fString, ""},
		{"currency", fString, "EUR"}, {"net", fNumber, ""}, {"tax", fNumber, ""}, {"gross", fNumber, ""},
		{"lines", fLines, ""}, {"invoice_date", fDate, ""}, {"due_date", fDue, ""},
		{"bank_account", fString, ""}, {"register_id", fString, ""}, {"duplicate", fBool, ""},
		{"flags", fFlags, ""},
	},
	KindMatchPrepared: {
		{"email_id", fString, ""}, {"doc_type", fString, DocInvoice}, {"supplier_id", fString, ""},
		{"invoice_number", fString, ""}, {"po_number", fString, ""}, {"currency", fString, "EUR"},
		{"net", fNumber, ""}, {"tax", fNumber, ""}, {"gross", fNumber, ""}, {"due_date", fDue, ""},
		{"bank_account", fString, ""}, {"register_id", fString, ""}, {"flags", fFlags, ""},
		{"duplicate", fBool, ""}, {"match_id", fString, ""}, {"match_status", fString, MatchMatched},
		{"variance", fNumber, ""}, {"variance_reason", fString, ""}, {"proposal", fString, ProposalPost},
	},
	KindDecisionMade: {
		{"email_id", fString, ""}, {"invoice_number", fString, ""}, {"supplier_id", fString, ""},
		{"decision", fString, ""}, {"reason", fString, ""}, {"currency", fString, "EUR"},
		{"gross", fNumber, ""}, {"amount_eur", fNumber, ""}, {"payment_id", fString, ""},
		{"escalation_id", fString, ""},
	},
	KindExceptionRaised: {
		{"email_id", fString, ""}, {"agent", fString, ""}, {"kind", fString, ExceptionToolFailure},
		{"tool", fString, ""}, {"code", fString, ""}, {"message", fString, ""},
	},
}

// viewKind is the kind a consumer reads a message as: whatever arrives, each
// agent reads its own input kind (the monitor tells exceptions apart from
// decisions by the envelope's kind).
func viewKind(consumer Agent, msgKind string) string {
	switch consumer {
	case Action:
		return KindInvoiceExtracted
	case Boundary:
		return KindMatchPrepared
	case Monitor:
		if msgKind == KindExceptionRaised {
			return KindExceptionRaised
		}
		return KindDecisionMade
	}
	if _, ok := views[msgKind]; ok {
		return msgKind
	}
	return KindInvoiceExtracted
}

// parseDecoded runs consumer's parser on wire bytes received on e, given
// as decodeObject decoded them (msg, err; parseDecoded takes msg over):
// the Parse seam, then the envelope and the payload read with silent
// defaults. day is the business day, for due-date defaults.
func parseDecoded(consumer Agent, e Edge, msg map[string]any, err error, seams Seams, day string) (*Handoff, error) {
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", e, err)
	}
	if msg == nil {
		return nil, fmt.Errorf("parse %s: not a JSON object", e)
	}
	seams.Parse(e, msg)
	h := &Handoff{
		ID:             str(msg["id"]),
		Edge:           str(msg["edge"]),
		Kind:           str(msg["kind"]),
		SchemaVersion:  str(msg["schema_version"]),
		IdempotencyKey: str(msg["idempotency_key"]),
		Escalation:     readEscalation(msg["escalation"]),
		EscalationRef:  str(msg["escalation_ref"]),
		Item:           str(msg["item"]),
	}
	for _, o := range list(msg["next_owner"]) {
		if s, ok := o.(string); ok {
			h.NextOwner = append(h.NextOwner, s)
		}
	}
	payload := object(msg["payload"])
	h.Payload = readPayload(views[viewKind(consumer, h.Kind)], payload, day)
	if h.Item == "" {
		h.Item = str(h.Payload["email_id"])
	}
	return h, nil
}

func readEscalation(v any) string {
	switch s := str(v); s {
	case EscalationRequested, EscalationEscalated:
		return s
	}
	return EscalationNone
}

// readPayload reads the fields of a view from payload, applying defaults.
// It rewrites payload in place (it is the parser's own decoded copy): every
// field of the view gets its read value, other fields are dropped.
func readPayload(specs []fieldSpec, payload map[string]any, day string) map[string]any {
	out := payload
	if out == nil {
		out = make(map[string]any, len(specs))
	}
	for _, f := range specs {
		v, present := payload[f.name]
		switch f.typ {
		case fString:
			s, ok := v.(string)
			if ok && s != "" {
				continue // already as the consumer reads it
			}
			if n, isNum := v.(float64); isNum {
				s, ok = fmtNum(n), true
			}
			if !ok || s == "" {
				s = f.def
			}
			out[f.name] = s
		case fNumber:
			if _, ok := v.(float64); ok {
				continue
			}
			n, _ := num(v)
			out[f.name] = n
		case fDate:
			d, _ := readDate(v)
			if s, ok := v.(string); ok && s == d {
				continue
			}
			out[f.name] = d
		case fDue:
			d, ok := readDate(v)
			if s, isStr := v.(string); ok && isStr && s == d {
				continue
			}
			if !ok {
				if inv, ok := readDate(payload["invoice_date"]); ok {
					d = addDays(inv, 30)
				} else {
					d = addDays(day, 30)
				}
			}
			out[f.name] = d
		case fBool:
			if _, ok := v.(bool); ok {
				continue
			}
			out[f.name] = present && str(v) == "true"
		case fFlags:
			if l, ok := v.([]any); ok && allStrings(l) {
				continue
			}
			l := list(v)
			flags := make([]any, 0, len(l))
			for _, x := range l {
				if s, ok := x.(string); ok {
					flags = append(flags, s)
				}
			}
			out[f.name] = flags
		case fLines:
			if l, ok := v.([]any); ok && cleanLines(l) {
				continue
			}
			l := list(v)
			lines := make([]any, 0, len(l))
			for _, x := range l {
				m := object(x)
				if m == nil {
					continue
				}
				qty, _ := num(m["qty"])
				price, _ := num(m["unit_price"])
				amount, _ := num(m["amount"])
				lines = append(lines, map[string]any{
					"sku": str(m["sku"]), "description": str(m["description"]),
					"qty": qty, "unit_price": price, "amount": amount,
				})
			}
			out[f.name] = lines
		}
	}
	for k := range out {
		if !inView(specs, k) {
			delete(out, k)
		}
	}
	return out
}

func inView(specs []fieldSpec, name string) bool {
	for i := range specs {
		if specs[i].name == name {
			return true
		}
	}
	return false
}

func allStrings(l []any) bool {
	for _, x := range l {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// cleanLines reports whether every line already reads as the parser would
// write it: an object of exactly sku, description (strings), qty,
// unit_price and amount (numbers).
func cleanLines(l []any) bool {
	for _, x := range l {
		m, ok := x.(map[string]any)
		if !ok || len(m) != 5 {
			return false
		}
		for _, k := range [...]string{"sku", "description"} {
			if _, ok := m[k].(string); !ok {
				return false
			}
		}
		for _, k := range [...]string{"qty", "unit_price", "amount"} {
			if _, ok := m[k].(float64); !ok {
				return false
			}
		}
	}
	return true
}
