package invoice

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
	Name    = "invoice"
	Version = "1.0.0"
)

// The agents, in flow order.
const (
	Intake   mission.Agent = "intake"
	Action   mission.Agent = "action"
	Boundary mission.Agent = "boundary"
	Monitor  mission.Agent = "monitor"
)

// The slips of the model profile besides the emitters' [mission.Misroute].
const (
	Misclassify mission.Slip = "misclassify" // intake reads the email as the wrong document type
	Misread     mission.Slip = "misread"     // a field is read wrongly (a digit, a currency)
	SkipLookup  mission.Slip = "skip_lookup" // a lookup before a write is skipped
)

// Message kinds carried on the edges.
const (
	KindInvoiceExtracted = "invoice.extracted"
	KindMatchPrepared    = "match.prepared"
	KindDecisionMade     = "decision.made"
	KindExceptionRaised  = "exception.raised"
)

// The edges and the message kind each carries.
var (
	IntakeToAction    = mission.Edge{From: Intake, To: Action}    // invoice.extracted
	ActionToBoundary  = mission.Edge{From: Action, To: Boundary}  // match.prepared
	BoundaryToMonitor = mission.Edge{From: Boundary, To: Monitor} // decision.made
	IntakeToMonitor   = mission.Edge{From: Intake, To: Monitor}   // exception.raised
	ActionToMonitor   = mission.Edge{From: Action, To: Monitor}   // exception.raised
)

//go:embed contracts/*.yaml
var contractFS embed.FS

//go:embed catalogue.yaml
var catalogueYAML []byte

//go:embed protocol.yaml
var protocolYAML []byte

// promptFS holds the instructions of each agent's model-backed core.
//
//go:embed prompts/*.md
var promptFS embed.FS

// Names of the embedded default files, as errors and manifests give them.
const (
	CatalogueName = "mission/invoice/catalogue.yaml"
	ProtocolName  = "mission/invoice/protocol.yaml"
)

// New returns the reference mission. It caches per-scenario fixtures:
// scenarios run through one value must not change afterwards (take a new
// value for changed scenarios).
func New() mission.Mission {
	m, err := mission.New(definition())
	if err != nil {
		panic(fmt.Sprintf("invoice: %v", err)) // the definition is static; tests build it
	}
	return invoiceMission{m}
}

// Spec returns the mission's spec.
func Spec() *mission.Spec { return spec() }

func definition() mission.Definition {
	checks := new(checkers)
	return mission.Definition{
		Spec: spec(),
		Cores: map[mission.Agent]mission.Core{
			Intake:   mission.Policy(new(docMemo).intake),
			Action:   mission.Policy(action),
			Boundary: mission.Policy(boundary),
			Monitor:  mission.Policy(monitor),
		},
		Check: func(sc *mission.Scenario, end *sandbox.State) []sandbox.Difference {
			want, _ := sc.Expect.(*Expected)
			return checks.check(want, end)
		},
		Scenarios:      DefaultScenarios,
		ParseScenarios: parseFile,
		NewAttachment:  func() mission.Attachment { return new(Document) },
	}
}

// spec is built once: it is immutable data.
var spec = sync.OnceValue(func() *mission.Spec {
	reg, err := newRegistry()
	if err != nil {
		panic(fmt.Sprintf("invoice: %v", err))
	}
	contracts, err := fs.Sub(contractFS, "contracts")
	if err != nil {
		panic(fmt.Sprintf("invoice: %v", err))
	}
	prompts, err := fs.Sub(promptFS, "prompts")
	if err != nil {
		panic(fmt.Sprintf("invoice: %v", err))
	}
	return &mission.Spec{
		Name:    Name,
		Version: Version,
		Doc: "A day of supplier invoices in a finance system: intake classifies each email and extracts the invoice, " +
			"action matches it against the purchase order and goods receipts, boundary approves and pays, escalates " +
			"to a person or rejects, and monitor publishes the day's exception report.",
		Agents:        agents(),
		Entry:         Intake,
		Messages:      messages(),
		Edges:         edges(),
		Tools:         reg,
		SchemaVersion: SchemaVersion,
		ItemField:     "email_id",
		MaxAttempts:   MaxAttempts,
		Contracts:     contracts,
		Catalogue:     mission.File{Name: CatalogueName, Data: catalogueYAML},
		Protocol:      mission.File{Name: ProtocolName, Data: protocolYAML},
		Prompts:       prompts,
	}
})

func edges() []mission.EdgeSpec {
	return []mission.EdgeSpec{
		{From: Intake, To: Action, Kind: KindInvoiceExtracted, Escalation: true},
		{From: Action, To: Boundary, Kind: KindMatchPrepared, Escalation: true},
		{From: Boundary, To: Monitor, Kind: KindDecisionMade, Escalation: true},
		{From: Intake, To: Monitor, Kind: KindExceptionRaised, Source: "exception"},
		{From: Action, To: Monitor, Kind: KindExceptionRaised, Source: "exception"},
	}
}

func agents() []mission.AgentSpec {
	escalate := mission.Decision{Kind: "escalate", Field: "escalation", Choices: []string{mission.EscalationNone, mission.EscalationRequested},
		Doc: "whether to ask the next agent to escalate the item"}
	return []mission.AgentSpec{
		{
			Name:  Intake,
			Doc:   "Classifies each email, extracts the invoice, looks the supplier up, checks for duplicates and registers it.",
			Slips: []mission.Slip{Misclassify, Misread, mission.Misroute},
			Decisions: []mission.Decision{
				{Kind: "classify", Field: "doc_type", Choices: []string{DocInvoice, DocCreditNote, DocStatement, DocOutOfScope, DocSuspicious},
					Doc: "the email's document type"},
				escalate,
			},
			Result: result(KindInvoiceExtracted, "escalation", "exception"),
		},
		{
			Name:  Action,
			Doc:   "Matches the invoice against the purchase order and goods receipts, records the match and proposes post, hold, close or reject.",
			Slips: []mission.Slip{mission.Misroute},
			Decisions: []mission.Decision{
				{Kind: "proposal", Field: "proposal", Choices: []string{ProposalPost, ProposalHold, ProposalClose, ProposalReject},
					Doc: "what action proposes boundary does with the item"},
				{Kind: "escalate", Field: "escalation", Choices: []string{mission.EscalationNone, mission.EscalationRequested},
					Doc: "whether to ask boundary to escalate the item"},
			},
			Result: result(KindMatchPrepared, "escalation", "escalation_ref", "exception"),
		},
		{
			Name:  Boundary,
			Doc:   "Holds approvals and limits: approves and schedules payment, escalates to a person, rejects or closes.",
			Slips: []mission.Slip{SkipLookup, mission.Misroute},
			Decisions: []mission.Decision{
				{Kind: "decision", Field: "decision", Choices: []string{DecisionApproved, DecisionEscalated, DecisionRejected, DecisionClosed},
					Doc: "what becomes of the item"},
			},
			Rules: []mission.Rule{
				{ID: "hard.lookup_before_write", Kind: mission.RuleAfter, Tool: SchedulePayment, After: LookupSupplier,
					Message: "scheduled a payment without looking the supplier up first", Doc: "look up before write"},
				{ID: "hard.payment_without_approval", Kind: mission.RuleAfter, Tool: SchedulePayment, After: ApproveInvoice,
					Message: "scheduled a payment without an approval", Doc: "no payment without approval"},
			},
			Result: result(KindDecisionMade, "escalation", "escalation_ref"),
		},
		{
			Name:    Monitor,
			Doc:     "Collects the day's escalations, rejections and failures and publishes one exception report.",
			Collect: true,
			Result: sandbox.Object("the day's exception report",
				sandbox.Prop("day", true, sandbox.Schema{Type: sandbox.TypeString, Format: "date"}),
				sandbox.Prop("entries", true, sandbox.Schema{Type: sandbox.TypeArray, Items: sandbox.Object("",
					sandbox.Prop("item", true, text), sandbox.Prop("kind", true, text), sandbox.Prop("reason", true, text))}),
				sandbox.Prop("report_id", true, text)),
		},
	}
}

// result is an agent's result schema: the payload fields of the kind it
// sends, plus the envelope fields it decides (escalation, escalation_ref)
// and, for "exception", the exception.raised payload it may carry.
func result(kind string, extra ...string) *sandbox.Schema {
	var fields []mission.Field
	for _, m := range messages() {
		if m.Kind == kind {
			fields = m.Fields
		}
	}
	s := mission.FieldSchema(fields)
	for _, x := range extra {
		switch x {
		case "escalation":
			s.Properties = append(s.Properties, sandbox.Prop(x, true, sandbox.Schema{Type: sandbox.TypeString,
				Enum: []string{mission.EscalationNone, mission.EscalationRequested, mission.EscalationEscalated}}))
		case "escalation_ref":
			s.Properties = append(s.Properties, sandbox.Prop(x, false, text))
		case "exception":
			var exc []mission.Field
			for _, m := range messages() {
				if m.Kind == KindExceptionRaised {
					exc = m.Fields
				}
			}
			s.Properties = append(s.Properties, sandbox.Prop(x, false, *mission.FieldSchema(exc)))
		}
	}
	return s
}
