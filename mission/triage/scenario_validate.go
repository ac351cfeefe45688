package triage

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
)

// validator checks one decoded scenario, naming lines through its YAML
// node.
type validator struct {
	p     *parser
	node  *yaml.Node
	label string
	doc   *scenarioDoc
	ok    bool
}

var (
	scenarioIDRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	tagRe        = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(:[A-Za-z0-9._-]+)?$`)
	currencyRe   = regexp.MustCompile(`^[A-Z]{3}$`)
)

// line returns the line of the node at path (map keys and list indexes),
// or of the deepest ancestor present.
func (v *validator) line(path ...any) int {
	n := v.node
	for _, step := range path {
		var next *yaml.Node
		switch s := step.(type) {
		case string:
			next = mapValue(n, s)
		case int:
			if d := deref(n); d.Kind == yaml.SequenceNode && s < len(d.Content) {
				next = d.Content[s]
			}
		}
		if next == nil {
			break
		}
		n = deref(next)
	}
	return n.Line
}

func (v *validator) errorf(path []any, format string, args ...any) {
	var b strings.Builder
	b.WriteString(v.label)
	for _, s := range path {
		switch s := s.(type) {
		case string:
			b.WriteString("." + s)
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	v.p.errorf(v.line(path...), b.String(), format, args...)
	v.ok = false
}

func at(path ...any) []any { return path }

// validate reports every problem of the scenario and whether it has none.
func (v *validator) validate() bool {
	v.ok = true
	d := v.doc
	if !scenarioIDRe.MatchString(d.ID) {
		v.errorf(at("id"), "%q: want a letter, then letters, digits, '_' or '-'", d.ID)
	}
	if strings.TrimSpace(d.Title) == "" {
		v.errorf(at("title"), "missing")
	}
	if !slices.Contains(mission.AllCategories, d.Category) {
		v.errorf(at("category"), "unknown category %q (want %s)", d.Category, joinCategories())
	}
	v.tags()
	if _, err := time.Parse(time.DateOnly, d.Day); err != nil {
		v.errorf(at("day"), "%q: want a date YYYY-MM-DD", d.Day)
	}
	v.initial()
	tickets := v.tickets()
	v.expect(tickets)
	return v.ok
}

func joinCategories() string {
	var s []string
	for _, c := range mission.AllCategories {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

func (v *validator) tags() {
	d := v.doc
	for i, t := range d.Tags {
		if !tagRe.MatchString(t) {
			v.errorf(at("tags", i), "%q: want lower-case words, optionally name:value", t)
		}
	}
	if want := "category:" + string(d.Category); !slices.Contains(d.Tags, want) {
		v.errorf(at("tags"), "missing the tag %s", want)
	}
	currencies := map[string]bool{}
	for _, x := range d.Expect.Tickets {
		for _, r := range x.Refunds {
			currencies[r.Currency] = true
		}
	}
	for _, inv := range d.Initial.Invoices {
		currencies[inv.Currency] = true
	}
	for _, c := range slices.Sorted(maps.Keys(currencies)) {
		if currencyRe.MatchString(c) && !slices.Contains(d.Tags, "currency:"+c) && len(d.Tickets) > 0 && v.mentions(c) {
			v.errorf(at("tags"), "missing the tag currency:%s (an invoice of its tickets is in %s)", c, c)
		}
	}
}

// mentions reports whether some ticket names an invoice in currency c.
func (v *validator) mentions(c string) bool {
	for _, tk := range v.doc.Tickets {
		r := read(tk.Subject, tk.Body)
		for _, inv := range v.doc.Initial.Invoices {
			if inv.Currency == c && strings.EqualFold(inv.ID, r.invoiceID) {
				return true
			}
		}
	}
	return false
}

func (v *validator) initial() {
	st := &v.doc.Initial
	seen := map[string]bool{}
	for i, inv := range st.Invoices {
		switch {
		case inv.ID == "" || seen[inv.ID]:
			v.errorf(at("initial", "invoices", i, "id"), "%q: want a unique invoice id", inv.ID)
		case !currencyRe.MatchString(inv.Currency):
			v.errorf(at("initial", "invoices", i, "currency"), "%q: want an ISO 4217 code", inv.Currency)
		case inv.Amount < 0 || inv.Refunded < 0:
			v.errorf(at("initial", "invoices", i, "amount"), "want amounts of 0 or more")
		}
		seen[inv.ID] = true
	}
	for i, a := range st.Articles {
		if a.ID == "" || len(a.Keywords) == 0 {
			v.errorf(at("initial", "articles", i), "want an id and at least one keyword")
		}
	}
	for i, o := range st.Outages {
		if _, ok := spec().Tools.Tool(o.Tool); !ok {
			v.errorf(at("initial", "outages", i, "tool"), "unknown tool %q", o.Tool)
		}
	}
	if len(st.Routes)+len(st.Notes)+len(st.Replies)+len(st.Escalations)+len(st.Closures) > 0 {
		v.errorf(at("initial"), "the ticket log starts empty: a scenario sets up invoices, articles, outages, refunds and bugs")
	}
}

// tickets checks the tickets and returns their ids.
func (v *validator) tickets() map[string]bool {
	ids := map[string]bool{}
	if len(v.doc.Tickets) == 0 {
		v.errorf(at("tickets"), "want at least one ticket")
	}
	for i, tk := range v.doc.Tickets {
		switch {
		case !scenarioIDRe.MatchString(tk.ID) || ids[tk.ID]:
			v.errorf(at("tickets", i, "id"), "%q: want a unique ticket id", tk.ID)
		case strings.TrimSpace(tk.Subject+tk.Body) == "":
			v.errorf(at("tickets", i, "body"), "want a subject or a body")
		case !strings.Contains(tk.From, "@"):
			v.errorf(at("tickets", i, "from"), "%q: want the customer's e-mail address", tk.From)
		}
		ids[tk.ID] = true
	}
	return ids
}

func (v *validator) expect(tickets map[string]bool) {
	seen := map[string]bool{}
	for i, x := range v.doc.Expect.Tickets {
		p := func(f string) []any { return at("expect", "tickets", i, f) }
		switch {
		case !tickets[x.Ticket]:
			v.errorf(p("ticket"), "%q: no such ticket in the scenario", x.Ticket)
		case seen[x.Ticket]:
			v.errorf(p("ticket"), "%q: expected twice", x.Ticket)
		}
		seen[x.Ticket] = true
		if !slices.Contains([]string{RouteBilling, RouteTech, RouteBoth, RouteNone}, x.Route) {
			v.errorf(p("route"), "%q: want billing, tech, both or none", x.Route)
		}
		v.outcome(p("billing"), x.Billing, x.Route == RouteBilling || x.Route == RouteBoth, BillingStatuses)
		v.outcome(p("tech"), x.Tech, x.Route == RouteTech || x.Route == RouteBoth, TechStatuses)
		if x.Escalation != "" && !slices.Contains(EscalationReasons, x.Escalation) {
			v.errorf(p("escalation"), "%q: want one of %s", x.Escalation, strings.Join(EscalationReasons, ", "))
		}
		if x.Language != "" && !slices.Contains(Languages, x.Language) {
			v.errorf(p("language"), "%q: want one of %s", x.Language, strings.Join(Languages, ", "))
		}
		for j, r := range x.Refunds {
			if !(r.Amount > 0) || !currencyRe.MatchString(r.Currency) || r.Invoice == "" {
				v.errorf(at("expect", "tickets", i, "refunds", j), "want an invoice, an amount above 0 and an ISO 4217 currency")
			}
		}
		if x.Route == RouteNone && (len(x.Refunds) > 0 || x.Bug || x.Escalation != "") {
			v.errorf(p("route"), "a ticket closed as out of scope has no refund, bug or escalation")
		}
	}
	for _, tk := range v.doc.Tickets {
		if !seen[tk.ID] {
			v.errorf(at("expect", "tickets"), "ticket %s has no expectation", tk.ID)
		}
	}
}

// outcome checks a specialist's expected outcome: required when the route
// asks it, absent otherwise.
func (v *validator) outcome(path []any, got string, asked bool, allowed []string) {
	switch {
	case asked && got == "":
		v.errorf(path, "missing: the route asks this specialist")
	case !asked && got != "":
		v.errorf(path, "%q: the route does not ask this specialist", got)
	case got != "" && !slices.Contains(allowed, got):
		v.errorf(path, "%q: want one of %s", got, strings.Join(allowed, ", "))
	}
}
