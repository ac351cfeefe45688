package triage

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// supervisor is the supervisor's policy. On a ticket (the entry turn) it
// triages: billing when the ticket is about money or names an invoice,
// tech when it is about a product problem, both when it is about both,
// none (closed as out of scope) otherwise; it records the route and hands
// the ticket to each specialist it needs. On a specialist's answer it
// reads the ticket's log, keeps the answer and waits when the other
// specialist has not answered yet, and otherwise escalates what a
// specialist asked it to and sends the customer one summary.
func (d *desk) supervisor(_ context.Context, t *mission.Turn) (mission.Result, error) {
	if t.Input != nil {
		return triageTicket(t, d.read(t.Input.Subject, t.Input.Body)), nil
	}
	if len(t.Messages) == 0 {
		return mission.Result{"ticket_id": t.Item}, nil
	}
	return summarise(t, t.Messages[0]), nil
}

// triageTicket is the supervisor's turn on a new ticket, read as r.
func triageTicket(t *mission.Turn, r reading) mission.Result {
	in := t.Input
	route := RouteNone
	switch {
	case r.billing && r.tech:
		route = RouteBoth
	case r.billing:
		route = RouteBilling
	case r.tech:
		route = RouteTech
	}
	t.Step("triage", route, 0, 40)
	route = t.Decide("triage", route)
	item := any(t.Item) // boxed once for the result, the calls and the hand-offs
	res := mission.Result{"ticket_id": item, "assigned": route}
	switch route {
	case RouteBilling, RouteTech, RouteBoth:
	default:
		if out, ok := call(t, CloseTicket, sandbox.Args{"ticket_id": item, "reason": ReasonOutOfScope}); ok {
			res["closure_id"] = out["closure_id"]
		}
		return res
	}
	if route == RouteBilling && t.Slip(SelfAnswer, "triage") {
		// The supervisor answers the billing question itself instead of
		// asking billing: a reply nobody who looked at the invoice wrote.
		t.Step("answer", StatusAnsweredBySupervisor, 0, 60)
		if out, ok := call(t, ReplyToUser, sandbox.Args{"ticket_id": item, "language": r.language,
			"billing": StatusAnsweredBySupervisor, "message": greeting(r.language) + " " + "Your billing question is answered: all is in order."}); ok {
			res["reply_id"] = out["reply_id"]
		}
		return res
	}
	if _, ok := call(t, RouteTicket, sandbox.Args{"ticket_id": item, "route": route}); !ok {
		escalate(t, res, ReasonSystemUnavailable)
		return res
	}
	needs := []any{}
	if route != RouteTech {
		needs = append(needs, string(Billing))
	}
	if route != RouteBilling {
		needs = append(needs, string(Tech))
	}
	from, subject, body, language := any(in.From), any(in.Subject), any(in.Body), any(r.language)
	for _, n := range needs {
		res[n.(string)] = mission.Result{"ticket_id": item, "customer": from, "subject": subject, "body": body,
			"language": language, "needs": needs}
	}
	return res
}

// part is one specialist's answer as the summary reads it.
type part struct {
	from       mission.Agent
	payload    map[string]any
	escalation string
	ref        string
}

// summarise is the supervisor's turn on a specialist's answer.
func summarise(t *mission.Turn, h *mission.Handoff) mission.Result {
	item := any(t.Item) // boxed once for the result and the calls
	res := mission.Result{"ticket_id": item}
	this := part{from: sender(h), payload: h.Payload, escalation: h.Escalation, ref: h.EscalationRef}
	log, ok := call(t, GetTicket, sandbox.Args{"ticket_id": item})
	if !ok {
		// Without the log the supervisor cannot tell whether to wait: a
		// person takes the ticket.
		t.Step("summary", "escalate", 0, 20)
		escalate(t, res, ReasonSystemUnavailable)
		return res
	}
	route := jsontext.Str(log["route"])
	var parts []part
	for _, n := range jsontext.List(log["notes"]) {
		m := jsontext.Object(n)
		parts = append(parts, part{from: mission.Agent(jsontext.Str(m["from"])), payload: m, escalation: jsontext.Str(m["escalation"])})
	}
	if route == RouteBoth && len(parts) == 0 && (this.from == Billing || this.from == Tech) {
		other := Tech
		if this.from == Tech {
			other = Billing
		}
		t.Step("wait", string(other), 0, 20)
		args := sandbox.Args{"ticket_id": item, "from": string(this.from), "escalation": this.escalation}
		for _, k := range []string{"status", "reason", "invoice_id", "refund_id", "amount", "currency", "article", "bug_id", "language"} {
			args[k] = this.payload[k]
		}
		if _, ok := call(t, NoteTicket, args); !ok {
			escalate(t, res, ReasonSystemUnavailable)
			return res
		}
		res["waiting_for"] = string(other)
		return res
	}
	parts = append(parts, this)
	return reply(t, res, item, parts)
}

// reply escalates what the parts ask for and sends the summary; item is
// the turn's item, boxed.
func reply(t *mission.Turn, res mission.Result, item any, parts []part) mission.Result {
	args := sandbox.Args{"ticket_id": item, "language": LangEnglish, "billing": "", "tech": "", "amount": 0.0, "currency": "",
		"refund_id": "", "article": "", "bug_id": "", "escalation_id": ""}
	reason, ref := "", ""
	for _, p := range parts {
		pl := p.payload
		if l := jsontext.Str(pl["language"]); l != "" {
			args["language"] = l
		}
		switch p.from {
		case Billing:
			args["billing"] = jsontext.Str(pl["status"])
			args["refund_id"] = jsontext.Str(pl["refund_id"])
			if n, ok := pl["amount"].(float64); ok && n != 0 {
				args["amount"], args["currency"] = n, jsontext.Str(pl["currency"])
			}
		case Tech:
			args["tech"] = jsontext.Str(pl["status"])
			args["article"] = jsontext.Str(pl["article"])
			args["bug_id"] = jsontext.Str(pl["bug_id"])
		}
		switch p.escalation {
		case mission.EscalationRequested:
			if reason == "" {
				reason = jsontext.Str(pl["reason"])
				if reason == "" {
					reason = ReasonSystemUnavailable
				}
			}
		case mission.EscalationEscalated:
			ref = p.ref // a person has it already
		}
	}
	t.Step("summary", summaryChoice(args), 0, 60)
	if reason != "" && ref == "" {
		if !escalate(t, res, reason) {
			return res
		}
		ref = jsontext.Str(res["escalation_id"])
	}
	args["escalation_id"] = ref
	args["message"] = summaryText(args)
	if out, ok := call(t, ReplyToUser, args); ok {
		res["reply_id"] = out["reply_id"]
	}
	return res
}

// escalate puts the ticket in front of a person, recording the escalation
// id in res; it reports whether that worked.
func escalate(t *mission.Turn, res mission.Result, reason string) bool {
	t.Escalation(reason)
	out, ok := call(t, EscalateTicket, sandbox.Args{"ticket_id": t.Item, "reason": reason})
	if ok {
		res["escalation_id"] = out["escalation_id"]
	}
	return ok
}

// call makes a tool call, recording an exception when it fails for good.
func call(t *mission.Turn, tool string, args sandbox.Args) (sandbox.Result, bool) {
	out, err := t.Call(tool, args)
	if err != nil {
		t.Exception(tool, err.Code)
		return nil, false
	}
	return out, true
}

// sender is the agent that sent h, read from its envelope's edge.
func sender(h *mission.Handoff) mission.Agent {
	e, err := mission.ParseEdge(h.Edge)
	if err != nil {
		return ""
	}
	return e.From
}

func summaryChoice(args sandbox.Args) string {
	var out []string
	for _, k := range []string{"billing", "tech"} {
		if s, _ := args[k].(string); s != "" {
			out = append(out, k+":"+s)
		}
	}
	return strings.Join(out, ",")
}

// greeting opens a summary in the customer's language.
func greeting(lang string) string {
	switch lang {
	case LangGerman:
		return "Hallo,"
	case LangFrench:
		return "Bonjour,"
	case LangSpanish:
		return "Hola,"
	}
	return "Hello,"
}

// summaryText is the summary's text: a greeting and each specialist's
// outcome.
func summaryText(args sandbox.Args) string {
	lang, _ := args["language"].(string)
	b := make([]byte, 0, 128)
	b = append(b, greeting(lang)...)
	if s, _ := args["billing"].(string); s != "" {
		b = append(append(b, " billing: "...), s...)
		if n, _ := args["amount"].(float64); n != 0 {
			b = strconv.AppendFloat(append(b, " ("...), n, 'f', 2, 64) // as %.2f
			b = append(append(append(append(b, ' '), asText(args["currency"])...), ", "...), asText(args["refund_id"])...)
			b = append(b, ')')
		}
		b = append(b, '.')
	}
	if s, _ := args["tech"].(string); s != "" {
		b = append(append(b, " tech: "...), s...)
		for _, k := range []string{"article", "bug_id"} {
			if v, _ := args[k].(string); v != "" {
				b = append(append(append(b, " ("...), v...), ')')
			}
		}
		b = append(b, '.')
	}
	if id, _ := args["escalation_id"].(string); id != "" {
		b = append(append(append(b, " A colleague has your ticket ("...), id...), ")."...)
	}
	return string(b)
}

// asText is what fmt's %s writes of v.
func asText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprintf("%s", v)
}
