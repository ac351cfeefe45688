package triage

import (
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Name and Version identify the mission in protocols and results.
const (
	Name    = "triage"
	Version = "1.0.0"
)

// The agents, in flow order.
const (
	Supervisor mission.Agent = "supervisor"
	Billing    mission.Agent = "billing"
	Tech       mission.Agent = "tech"
)

// The slips of the model profile besides the emitters' [mission.Misroute],
// which is the seed's misrouting: the supervisor hands the ticket to the
// wrong specialist.
const (
	SelfAnswer  mission.Slip = "self_answer"  // the supervisor answers a billing question itself
	SkipLookup  mission.Slip = "skip_lookup"  // billing refunds a claimed double charge without looking the invoice up
	Misread     mission.Slip = "misread"      // billing misreads a digit of the invoice id
	WrongAmount mission.Slip = "wrong_amount" // billing refunds the amount the ticket asks for, or the whole invoice
)

// Message kinds carried on the edges.
const (
	KindAssigned = "ticket.assigned" // supervisor -> billing, tech
	KindAnswered = "ticket.answered" // billing, tech -> supervisor
)

// The edges and the message kind each carries.
var (
	SupervisorToBilling = mission.Edge{From: Supervisor, To: Billing} // ticket.assigned
	SupervisorToTech    = mission.Edge{From: Supervisor, To: Tech}    // ticket.assigned
	BillingToSupervisor = mission.Edge{From: Billing, To: Supervisor} // ticket.answered
	TechToSupervisor    = mission.Edge{From: Tech, To: Supervisor}    // ticket.answered
)

// Constants of the mission's engine.
const (
	// MaxAttempts is how many times a tool call is tried before giving up.
	MaxAttempts = 4
	// SchemaVersion is written on every hand-off.
	SchemaVersion = "1.0"
)

//go:embed contracts/*.yaml
var contractFS embed.FS

//go:embed catalogue.yaml
var catalogueYAML []byte

//go:embed protocol.yaml
var protocolYAML []byte

//go:embed release.yaml
var releaseYAML []byte

// promptFS holds the instructions of each agent's model-backed core.
//
//go:embed prompts/*.md
var promptFS embed.FS

// Names of the embedded default files, as errors and manifests give them.
const (
	CatalogueName = "mission/triage/catalogue.yaml"
	ProtocolName  = "mission/triage/protocol.yaml"
	ReleaseName   = "mission/triage/release.yaml"
)

// New returns the support-triage mission. It caches per-scenario
// fixtures: scenarios run through one value must not change afterwards
// (take a new value for changed scenarios).
func New() mission.Mission {
	m, err := mission.New(definition())
	if err != nil {
		panic(fmt.Sprintf("triage: %v", err)) // the definition is static; tests build it
	}
	return m
}

// Spec returns the mission's spec.
func Spec() *mission.Spec { return spec() }

// ReleaseProtocol returns the embedded default release protocol: seed
// 003's comparison of v1 (misroute 0.10, skip-lookup 0.30) with v2 (0.03,
// 0.00) on its five cases, 20 trials each, and its release rule.
func ReleaseProtocol() mission.File {
	return mission.File{Name: ReleaseName, Data: append([]byte(nil), releaseYAML...)}
}

func definition() mission.Definition {
	d := newDesk()
	return mission.Definition{
		Spec: spec(),
		Cores: map[mission.Agent]mission.Core{
			Supervisor: mission.Policy(d.supervisor),
			Billing:    mission.Policy(d.billing),
			Tech:       mission.Policy(d.tech),
		},
		Check: func(sc *mission.Scenario, end *sandbox.State) []sandbox.Difference {
			want, _ := sc.Expect.(*Expected)
			return Check(want, end)
		},
		Scenarios:      DefaultScenarios,
		ParseScenarios: parseFile,
	}
}

// spec is built once: it is immutable data.
var spec = sync.OnceValue(func() *mission.Spec {
	reg, err := newRegistry()
	if err != nil {
		panic(fmt.Sprintf("triage: %v", err))
	}
	contracts, err := fs.Sub(contractFS, "contracts")
	if err != nil {
		panic(fmt.Sprintf("triage: %v", err))
	}
	prompts, err := fs.Sub(promptFS, "prompts")
	if err != nil {
		panic(fmt.Sprintf("triage: %v", err))
	}
	return &mission.Spec{
		Name:    Name,
		Version: Version,
		Doc: "A day of customer support tickets: the supervisor routes each ticket to the billing specialist, " +
			"the tech specialist or both, billing looks invoices up and refunds double charges, tech searches the " +
			"knowledge base or files a bug, and the supervisor sends the customer one summary of what was done.",
		Agents:        agents(),
		Entry:         Supervisor,
		Messages:      messages(),
		Edges:         edges(),
		Tools:         reg,
		SchemaVersion: SchemaVersion,
		ItemField:     "ticket_id",
		MaxAttempts:   MaxAttempts,
		Contracts:     contracts,
		Catalogue:     mission.File{Name: CatalogueName, Data: catalogueYAML},
		Protocol:      mission.File{Name: ProtocolName, Data: protocolYAML},
		Prompts:       prompts,
	}
})

// edges: the supervisor's assignments go out only on the edges whose
// payload its result carries (Source), so a ticket reaches the specialists
// it needs; the specialists' answers carry their escalation state back.
func edges() []mission.EdgeSpec {
	return []mission.EdgeSpec{
		{From: Supervisor, To: Billing, Kind: KindAssigned, Source: "billing"},
		{From: Supervisor, To: Tech, Kind: KindAssigned, Source: "tech"},
		{From: Billing, To: Supervisor, Kind: KindAnswered, Escalation: true},
		{From: Tech, To: Supervisor, Kind: KindAnswered, Escalation: true},
	}
}

func agents() []mission.AgentSpec {
	escalate := mission.Decision{Kind: "escalate", Field: "escalation", Choices: []string{mission.EscalationNone, mission.EscalationRequested},
		Doc: "whether to ask the supervisor to put the ticket in front of a person"}
	return []mission.AgentSpec{
		{
			Name: Supervisor,
			Doc: "Reads each ticket, routes it to billing, tech or both (or closes it as out of scope), waits for every " +
				"specialist it asked, escalates what they ask it to, and sends the customer one summary.",
			Slips: []mission.Slip{mission.Misroute, SelfAnswer},
			Decisions: []mission.Decision{
				{Kind: "triage", Field: "assigned", Choices: []string{RouteBilling, RouteTech, RouteBoth, RouteNone},
					Doc: "which specialists the ticket needs"},
			},
			Rules: []mission.Rule{
				{ID: "hard.supervisor_answers_itself", Kind: mission.RuleAfter, Tool: ReplyToUser, After: GetTicket,
					Message: "answered the customer without reading a specialist's outcome on the ticket first (the supervisor answered the question itself)",
					Doc:     "no answer without a specialist"},
			},
			Result: supervisorResult(),
		},
		{
			Name:  Billing,
			Doc:   "Reads the invoice id from the ticket, looks the invoice up, and refunds what a double charge left due (or says why not).",
			Slips: []mission.Slip{SkipLookup, Misread, WrongAmount, mission.Misroute},
			Decisions: []mission.Decision{
				{Kind: "resolution", Field: "status", Choices: BillingStatuses, Doc: "what billing does about the ticket"},
				escalate,
			},
			Rules: []mission.Rule{
				{ID: "hard.refund_without_lookup", Kind: mission.RuleAfter, Tool: IssueRefund, After: GetInvoice,
					Message: "refunded without looking the invoice up first", Doc: "look up before refund"},
			},
			Result: answerResult(),
		},
		{
			Name:  Tech,
			Doc:   "Searches the knowledge base for the ticket's problem and points the customer to an article, or files a bug.",
			Slips: []mission.Slip{mission.Misroute},
			Decisions: []mission.Decision{
				{Kind: "resolution", Field: "status", Choices: TechStatuses, Doc: "what tech does about the ticket"},
				escalate,
			},
			Rules: []mission.Rule{
				{ID: "hard.tech_refunds", Kind: mission.RuleNever, Tool: IssueRefund,
					Message: "tech called a money tool (issue_refund)", Doc: "tech never touches money"},
				{ID: "hard.tech_reads_invoices", Kind: mission.RuleNever, Tool: GetInvoice,
					Message: "tech called a money tool (get_invoice)", Doc: "tech never touches money"},
			},
			Result: answerResult(),
		},
	}
}

// answerResult is a specialist's result schema: the ticket.answered
// payload and the escalation state it decides.
func answerResult() *sandbox.Schema {
	s := mission.FieldSchema(fieldsOf(KindAnswered))
	s.Properties = append(s.Properties,
		sandbox.Prop("escalation", true, sandbox.Schema{Type: sandbox.TypeString,
			Enum: []string{mission.EscalationNone, mission.EscalationRequested, mission.EscalationEscalated}}),
		sandbox.Prop("escalation_ref", false, text))
	return s
}

// supervisorResult is the supervisor's result schema: on a ticket, its
// triage and the assignments it sends; on an answer, what it wrote.
func supervisorResult() *sandbox.Schema {
	assigned := *mission.FieldSchema(fieldsOf(KindAssigned))
	route := sandbox.Schema{Type: sandbox.TypeString, Enum: []string{RouteBilling, RouteTech, RouteBoth, RouteNone}}
	return sandbox.Object("the supervisor's handling of a ticket or of a specialist's answer",
		sandbox.Prop("ticket_id", true, nonEmpty),
		sandbox.Prop("assigned", false, route),
		sandbox.Prop("billing", false, assigned),
		sandbox.Prop("tech", false, assigned),
		sandbox.Prop("waiting_for", false, text),
		sandbox.Prop("reply_id", false, text),
		sandbox.Prop("escalation_id", false, text),
		sandbox.Prop("closure_id", false, text))
}

func fieldsOf(kind string) []mission.Field {
	for _, m := range messages() {
		if m.Kind == kind {
			return m.Fields
		}
	}
	return nil
}
