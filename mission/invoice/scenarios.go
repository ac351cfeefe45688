package invoice

import (
	"embed"
	"fmt"
	"slices"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// goldenFS holds the reviewed golden files of the default scenarios
// (scenarios/golden/<scenario-id>.json, plus a README).
//
//go:embed scenarios/golden
var goldenFS embed.FS

// goldenDir is the directory of the default scenarios' golden files,
// relative to the package.
const goldenDir = "scenarios/golden"

// goldenRecorded tells a reader of a golden file where it comes from.
const goldenRecorded = "recorded from the clean build (zero slips and faults) by `go test ./mission/invoice -run TestGoldenFiles -update`; review the diff before committing"

// scenarioReasons lists the reasons an expected outcome may give, by outcome.
var scenarioReasons = map[string][]string{
	OutcomeEscalated: {ReasonSuspicious, ReasonUnknownSupplier, ReasonBankAccountChanged, ReasonPOSupplierMismatch, ReasonSystemUnavailable, ReasonVarianceUnexplained, ReasonNoPO, ReasonUnknownCurrency, ReasonAboveThreshold, ReasonReviewRequested, ReasonToolRefused},
	OutcomeRejected:  {ReasonDuplicateInvoice, ReasonToolRefused},
	OutcomeClosed:    {ReasonOutOfScope, ReasonStatement, ReasonCreditNote},
}

// scenarioReportKinds lists the kinds of exception report entry.
var scenarioReportKinds = []string{"escalation", "rejection", "refusal", "tool_failure"}

// scenarioDoc is one scenario as its YAML writes it: the kernel's
// scenario frame with the mission's records, emails and expectation.
type scenarioDoc struct {
	ID       string           `yaml:"id"`
	Title    string           `yaml:"title"`
	Category mission.Category `yaml:"category"`
	Tags     []string         `yaml:"tags"` // at least category:… and currency:…
	Day      string           `yaml:"day"`  // YYYY-MM-DD
	Initial  Records          `yaml:"initial"`
	Emails   []Email          `yaml:"emails"`
	Expect   Expected         `yaml:"expect"`
	Golden   []mission.Golden `yaml:"golden"`

	Source string `yaml:"-"`
}

// Email is one inbound message as a scenario writes it. Attachment is the
// invoice document as the email carries it (what OCR of a PDF would give);
// newsletters and statements may have none.
type Email struct {
	ID         string    `json:"id" yaml:"id"`
	From       string    `json:"from" yaml:"from"`
	Subject    string    `json:"subject" yaml:"subject"`
	Body       string    `json:"body" yaml:"body"`
	HTML       bool      `json:"html,omitempty" yaml:"html"`
	Attachment *Document `json:"attachment,omitempty" yaml:"attachment"`
}

// Input returns the email as the kernel's input.
func (e *Email) Input() mission.Input {
	in := mission.Input{ID: e.ID, From: e.From, Subject: e.Subject, Body: e.Body, HTML: e.HTML}
	if e.Attachment != nil {
		in.Attachment = e.Attachment
	}
	return in
}

// Document is an invoice, credit note or statement as printed: an email's
// attachment.
type Document struct {
	Type          string    `json:"type" yaml:"type"` // invoice, credit_note, statement
	SupplierName  string    `json:"supplier_name" yaml:"supplier_name"`
	InvoiceNumber string    `json:"invoice_number" yaml:"invoice_number"`
	PONumber      string    `json:"po_number" yaml:"po_number"`
	Currency      string    `json:"currency" yaml:"currency"`
	Net           float64   `json:"net" yaml:"net"`
	Tax           float64   `json:"tax" yaml:"tax"`
	Gross         float64   `json:"gross" yaml:"gross"`
	InvoiceDate   string    `json:"invoice_date" yaml:"invoice_date"`
	DueDate       string    `json:"due_date" yaml:"due_date"`
	BankAccount   string    `json:"bank_account" yaml:"bank_account"`
	Lines         []DocLine `json:"lines" yaml:"lines"`
}

var _ mission.Attachment = (*Document)(nil)

// CloneAttachment returns a deep copy.
func (d *Document) CloneAttachment() mission.Attachment {
	c := *d
	c.Lines = slices.Clone(d.Lines)
	return &c
}

// DocLine is one printed invoice line.
type DocLine struct {
	SKU         string  `json:"sku" yaml:"sku"`
	Description string  `json:"description" yaml:"description"`
	Qty         float64 `json:"qty" yaml:"qty"`
	UnitPrice   float64 `json:"unit_price" yaml:"unit_price"`
	Amount      float64 `json:"amount" yaml:"amount"`
}

// scenario returns the kernel's scenario.
func (d *scenarioDoc) scenario() *mission.Scenario {
	sc := &mission.Scenario{
		ID: d.ID, Title: d.Title, Category: d.Category, Tags: d.Tags, Day: d.Day,
		Initial: sandbox.State{Records: &d.Initial}, Expect: &d.Expect, Golden: d.Golden, Source: d.Source,
	}
	sc.Inputs = make([]mission.Input, len(d.Emails))
	for i := range d.Emails {
		sc.Inputs[i] = d.Emails[i].Input()
	}
	return sc
}

// ParseScenarios parses one scenario file's contents; name is used in error
// messages and Scenario.Source. Scenarios come back in file order, families
// expanded in place.
//
// A scenario file is one YAML document, a mapping with two keys:
//
//	defs:       # optional, free-form: a place for YAML anchors (&suppliers)
//	scenarios:  # a list of entries
//	  - id: S01 …            # a scenario
//	  - family: …            # a family, expanded into several scenarios
//
// A family is a template scenario and a list of members. Every member is a
// flat mapping of variables; the template's scalar values may refer to them
// as ${name}. Each member yields one scenario, in the order listed, with the
// member's variables substituted (a member must set "id", and every variable
// it sets must be used). Expansion is plain text substitution, so the same
// file always gives the same scenarios with the same ids. A value that is
// exactly one reference takes the type of what it is replaced by, quoted or
// not ("${qty}" in a flow mapping becomes the number 40).
//
//	scenarios:
//	  - family:
//	      name: typical-po
//	      template:
//	        id: ${id}
//	        title: PO-backed ${currency} invoice from ${supplier}
//	        …
//	      members:
//	        - {id: S06, currency: EUR, supplier: SUP-001, …}
//
// Decoding is strict: unknown keys, wrong types, missing required fields,
// unknown categories, duplicate ids, expected items naming an unknown email,
// tags without category: and currency:, invalid dates and amounts that do
// not add up are errors of the form "file:line: field: problem".
func ParseScenarios(name string, data []byte) ([]*mission.Scenario, error) {
	p := newScenarioParser(name)
	out := p.parse(data)
	if err := p.err(); err != nil {
		return nil, fmt.Errorf("parse scenarios: %w", err)
	}
	return out, nil
}

// LoadScenarios reads scenario files; a directory contributes its *.yaml and
// *.yml files in name order. Ids must be unique across all files. The result
// is sorted by id.
func LoadScenarios(paths ...string) ([]*mission.Scenario, error) {
	files, err := mission.ReadScenarioFiles(paths...)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	all, err := mission.ParseScenarioFiles(files, parseFile)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	return all, nil
}

// parseFile parses one file, its problems unwrapped (as a suite lists them).
func parseFile(name string, data []byte) ([]*mission.Scenario, error) {
	p := newScenarioParser(name)
	out := p.parse(data)
	return out, p.err()
}

// defaults is the embedded suite, parsed once: immutable data, copied out
// by DefaultScenarios.
var defaults = sync.OnceValues(func() (*mission.Suite, error) {
	return mission.LoadSuite(mission.SuiteFiles{
		FS: scenarioFS, Pattern: "scenarios/*.yaml",
		Parse: parseFile,
		// The reviewed goldens (scenarios/golden/*.json) are part of the suite.
		GoldenFS: goldenFS, GoldenDir: goldenDir, Spec: spec(),
	})
})

// DefaultScenarios returns the embedded scenario suite, sorted by id, and
// the hex SHA-256 of its files (the scenario files, then the golden files:
// names and contents, in name order), which identifies it in results. The
// files are parsed once; every call returns fresh deep copies, so callers
// may change what they get.
//
// Each scenario carries its reviewed per-agent goldens (Scenario.Golden)
// from scenarios/golden/<id>.json, recorded from the clean build by
// `go test ./mission/invoice -run TestGoldenFiles -update` and checked
// against the authored end state; designs score against them instead of
// recording. A scenario without a golden file recorded for its current
// version, like every scenario of [LoadScenarios], has no goldens, and
// designs record them on the fly.
func DefaultScenarios() ([]*mission.Scenario, string, error) {
	s, err := defaults()
	if err != nil {
		return nil, "", err
	}
	scs, hash := s.Scenarios()
	return scs, hash, nil
}
