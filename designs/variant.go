package designs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/contracts"
)

// Params are a design's modelling choices. Each is a parameter of the
// design, recorded and reported, never a choice hidden in its code. A
// field a base design does not take stays empty.
type Params struct {
	// Scorecard is how much of a per-agent run design A (and C, which
	// includes it) scores: the result, or also the wire.
	Scorecard Scorecard `json:"scorecard,omitempty"`
	// Inputs is where A's (and C's) per-agent inputs come from: golden
	// (the scenario's goldens, mocked neighbours) or recorded (an
	// integrated run of the same build); "" takes [Input.Inputs].
	Inputs string `json:"inputs,omitempty"`
	// Contracts is the contract level C checks at; "" takes
	// [Input.Level].
	Contracts string `json:"contracts,omitempty"`
}

// Scorecard is the level of design A's scorecard.
type Scorecard string

// The scorecard levels.
const (
	// ScorecardResult scores each agent's tool trajectory, structured result
	// and hard rules.
	ScorecardResult Scorecard = "result"
	// ScorecardWire also scores each message the agent's emitter packaged
	// against the agent's golden message, field by field.
	ScorecardWire Scorecard = "wire"
)

// AllScorecards lists the scorecard levels.
var AllScorecards = []Scorecard{ScorecardResult, ScorecardWire}

func (s Scorecard) String() string { return string(s) }

// Where design A's per-agent inputs come from.
const (
	InputsGolden   = "golden"   // the scenario's golden expectations (mocked neighbours)
	InputsRecorded = "recorded" // an integrated run of the same build
)

// AllInputs lists where per-agent inputs may come from.
var AllInputs = []string{InputsGolden, InputsRecorded}

// param is one parameter a base design takes: its name, its values, and
// where a value goes in Params.
type param struct {
	name   string
	values []string
	set    func(p *Params, v string)
}

var (
	scorecardParam = param{"scorecard", []string{string(ScorecardResult), string(ScorecardWire)},
		func(p *Params, v string) { p.Scorecard = Scorecard(v) }}
	inputsParam    = param{"inputs", AllInputs, func(p *Params, v string) { p.Inputs = v }}
	contractsParam = param{"contracts", levelNames(), func(p *Params, v string) { p.Contracts = v }}
)

func levelNames() []string {
	out := make([]string, len(contracts.AllLevels))
	for i, l := range contracts.AllLevels {
		out[i] = l.String()
	}
	return out
}

// base is a base design: its default, the parameters it takes (in the
// order a variant id writes them) and how a variant is made.
type base struct {
	design Design
	params []param
	make   func(p Params) Design
}

// bases are the designs of the protocol, in id order.
func bases() []base {
	return []base{
		{PerAgent, []param{scorecardParam, inputsParam}, perAgent},
		{EndToEnd, nil, func(Params) Design { return EndToEnd }},
		{PerAgentContracts, []param{scorecardParam, inputsParam, contractsParam}, perAgentContracts},
		{TraceAttribution, nil, func(Params) Design { return TraceAttribution }},
	}
}

// All returns the base designs of the protocol, in id order, each with its
// default parameters.
func All() []Design {
	bs := bases()
	out := make([]Design, len(bs))
	for i, b := range bs {
		out[i] = b.design
	}
	return out
}

// ByID returns the design or variant with id (see [Lookup]), if there is
// one.
func ByID(id string) (Design, bool) {
	d, err := Lookup(id)
	return d, err == nil
}

// Lookup returns the design or variant with id: a base id ("A", "B", "C",
// "D") followed by one value per parameter it sets, each after a dot, in
// the order the base takes them: A takes its scorecard (result, wire) and
// its inputs (golden, recorded), so "A.wire", "A.recorded",
// "A.wire.recorded"; C takes those and a contract level ("C.schema",
// "C.wire.semantic"); B and D take none. The error names what is wrong
// and what would do.
func Lookup(id string) (Design, error) {
	name, rest, hasParams := strings.Cut(id, ".")
	var b *base
	bs := bases()
	for i := range bs {
		if bs[i].design.ID == name {
			b = &bs[i]
		}
	}
	if b == nil {
		ids := make([]string, len(bs))
		for i, x := range bs {
			ids[i] = x.design.ID
		}
		return Design{}, fmt.Errorf("design %q: unknown design %q (known: %s)", id, name, strings.Join(ids, ", "))
	}
	if !hasParams {
		return b.design, nil
	}
	var p Params
	next := 0
	for _, v := range strings.Split(rest, ".") {
		i := slices.IndexFunc(b.params, func(x param) bool { return slices.Contains(x.values, v) })
		switch {
		case len(b.params) == 0:
			return Design{}, fmt.Errorf("design %q: design %s takes no parameters", id, name)
		case i < 0:
			return Design{}, fmt.Errorf("design %q: %q is no value of %s's parameters (%s)", id, v, name, describeParams(b.params))
		case i < next:
			return Design{}, fmt.Errorf("design %q: %q comes too late: %s writes its parameters in the order %s, each once", id, v, name, paramNames(b.params))
		}
		b.params[i].set(&p, v)
		next = i + 1
	}
	d := b.make(p)
	d.ID = id
	return d, nil
}

func describeParams(ps []param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.name + ": " + strings.Join(p.values, ", ")
	}
	return strings.Join(parts, "; ")
}

func paramNames(ps []param) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// describe writes a variant's parameters for its name and doc: "wire
// scorecard, recorded inputs".
func (p Params) describe() string {
	var parts []string
	if p.Scorecard != "" {
		parts = append(parts, string(p.Scorecard)+" scorecard")
	}
	if p.Inputs != "" {
		parts = append(parts, p.Inputs+" inputs")
	}
	if p.Contracts != "" {
		parts = append(parts, p.Contracts+" contracts")
	}
	return strings.Join(parts, ", ")
}

// String writes the parameters a design takes, "scorecard wire, inputs
// golden" ("" for none).
func (p Params) String() string {
	var parts []string
	for _, kv := range [][2]string{{"scorecard", string(p.Scorecard)}, {"inputs", p.Inputs}, {"contracts", p.Contracts}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	return strings.Join(parts, ", ")
}

// inputs returns where the variant's per-agent inputs come from.
func (p Params) inputs(in Input) string {
	switch {
	case p.Inputs != "":
		return p.Inputs
	case in.Inputs != "":
		return in.Inputs
	}
	return InputsGolden
}

// level returns the contract level the variant checks at.
func (p Params) level(in Input) contracts.Level {
	for _, l := range contracts.AllLevels {
		if p.Contracts != "" && l.String() == p.Contracts {
			return l
		}
	}
	return in.Level
}

// wire reports whether the variant scores at the wire level.
func (p Params) wire() bool { return p.Scorecard == ScorecardWire }

// With returns the design with every parameter it takes but leaves empty
// set from defaults (the protocol's design_a_inputs and contract level),
// so that what it records and describes is what it runs. Its id and its
// Evaluate are unchanged: an empty parameter already takes the same
// default from the Input (Input.Inputs, Input.Level) the caller hands it.
func (d Design) With(defaults Params) Design {
	for _, b := range bases() {
		if b.design.ID != d.Base {
			continue
		}
		p := d.Params
		for _, x := range b.params {
			switch x.name {
			case scorecardParam.name:
				if p.Scorecard == "" {
					p.Scorecard = cmp.Or(defaults.Scorecard, ScorecardResult)
				}
			case inputsParam.name:
				if p.Inputs == "" {
					p.Inputs = cmp.Or(defaults.Inputs, InputsGolden)
				}
			case contractsParam.name:
				if p.Contracts == "" {
					p.Contracts = defaults.Contracts
				}
			}
		}
		made := b.make(p)
		d.Params, d.Name, d.Doc, d.Describe = made.Params, made.Name, made.Doc, made.Describe
		return d
	}
	return d
}
