package mutants

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Change is how perturb_tool_arg turns the value a core meant to pass into
// a realistic wrong one: a slip of the kind a real implementation makes,
// derived from the value itself rather than written down.
type Change string

// The changes, each for the argument types its doc names.
const (
	// ChangeLeadingDigit: a number with its first significant digit one
	// higher (9 becomes 8): 2725.10 becomes 3725.10, 0 becomes 1.
	ChangeLeadingDigit Change = "leading_digit"
	// ChangeNextDay: a YYYY-MM-DD date one day later.
	ChangeNextDay Change = "next_day"
	// ChangeSwapCurrency: EUR becomes USD, any other code EUR.
	ChangeSwapCurrency Change = "swap_currency"
	// ChangeNeighbourID: an identifier with its last run of digits one
	// lower (one higher when it is 0 or 1), width kept: SUP-005 becomes
	// SUP-004, SUP-001 becomes SUP-002, E1 becomes E2. When the mission
	// numbers its records so, that names another record of the same kind.
	// An identifier without a digit is left alone.
	ChangeNeighbourID Change = "neighbour_id"
	// ChangeNegate: a boolean's opposite.
	ChangeNegate Change = "negate"
	// ChangeDropLast: a list without its last item.
	ChangeDropLast Change = "drop_last"
)

// Changes lists every change.
var Changes = []Change{ChangeLeadingDigit, ChangeNextDay, ChangeSwapCurrency, ChangeNeighbourID, ChangeNegate, ChangeDropLast}

func (c Change) String() string { return string(c) }

// types returns the argument types a change applies to.
func (c Change) types() []sandbox.Type {
	switch c {
	case ChangeLeadingDigit:
		return []sandbox.Type{sandbox.TypeNumber}
	case ChangeNextDay, ChangeSwapCurrency, ChangeNeighbourID:
		return []sandbox.Type{sandbox.TypeString}
	case ChangeNegate:
		return []sandbox.Type{sandbox.TypeBoolean}
	case ChangeDropLast:
		return []sandbox.Type{sandbox.TypeArray}
	}
	return nil
}

// apply returns v changed, and whether that changed it. A value of the
// wrong type for the change is returned unchanged.
func (c Change) apply(v any) (any, bool) {
	switch c {
	case ChangeLeadingDigit:
		x, ok := number(v)
		if !ok {
			return v, false
		}
		y := leadingDigit(x)
		return y, y != x
	case ChangeNextDay:
		s, ok := v.(string)
		if !ok {
			return v, false
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return v, false
		}
		return t.AddDate(0, 0, 1).Format(time.DateOnly), true
	case ChangeSwapCurrency:
		s, ok := v.(string)
		if !ok {
			return v, false
		}
		if strings.EqualFold(s, "EUR") {
			return "USD", true
		}
		return "EUR", true
	case ChangeNeighbourID:
		s, ok := v.(string)
		if !ok {
			return v, false
		}
		n := neighbourID(s)
		return n, n != s
	case ChangeNegate:
		b, ok := v.(bool)
		if !ok {
			return v, false
		}
		return !b, true
	case ChangeDropLast:
		l, ok := v.([]any)
		if !ok || len(l) == 0 {
			return v, false
		}
		return slices.Clone(l[:len(l)-1]), true
	}
	return v, false
}

// leadingDigit raises x's first significant digit by one (9 becomes 8).
func leadingDigit(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	s := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	i := strings.IndexAny(s, "123456789")
	d := s[i] + 1
	if s[i] == '9' {
		d = '8'
	}
	y, err := strconv.ParseFloat(s[:i]+string(d)+s[i+1:], 64)
	if err != nil {
		return x
	}
	return math.Copysign(y, x)
}

// neighbourID returns s with its last run of digits one lower, or one
// higher when it reads 0 or 1, keeping its width: neither ever carries
// past the run ("009" becomes "008", "001" becomes "002").
func neighbourID(s string) string {
	end := strings.LastIndexAny(s, "0123456789") + 1
	if end == 0 {
		return s
	}
	start := end - 1
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	run := []byte(s[start:end])
	if strings.TrimLeft(string(run), "0") == "" || strings.TrimLeft(string(run), "0") == "1" {
		increment(run)
	} else {
		decrement(run)
	}
	return s[:start] + string(run) + s[end:]
}

// increment adds one to a run of decimal digits that is not all nines, in
// place.
func increment(d []byte) {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return
		}
		d[i] = '0'
	}
}

// decrement subtracts one from a run of decimal digits that reads at least
// 1, in place.
func decrement(d []byte) {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] > '0' {
			d[i]--
			return
		}
		d[i] = '9'
	}
}

func validatePerturb(m *Mutant, spec *mission.Spec) error {
	if err := validateTool(m, spec); err != nil {
		return err
	}
	c := Change(m.Change)
	if !slices.Contains(Changes, c) {
		names := make([]string, len(Changes))
		for i, c := range Changes {
			names[i] = string(c)
		}
		return fieldErrorf(ParamChange, "unknown change %q (want one of %s)", m.Change, strings.Join(names, ", "))
	}
	t, _ := spec.Tools.Tool(m.Tool)
	if t.Args == nil {
		return fieldErrorf(ParamArg, "%s declares no arguments to change", m.Tool)
	}
	p, ok := t.Args.Property(m.Arg)
	if !ok {
		var names []string
		for _, p := range t.Args.Properties {
			names = append(names, p.Name)
		}
		return fieldErrorf(ParamArg, "%s takes no argument %q (it takes %s)", m.Tool, m.Arg, strings.Join(names, ", "))
	}
	if !slices.Contains(c.types(), p.Schema.Type) {
		return fieldErrorf(ParamChange, "%s changes a %s, and %s's %s is a %s", c, c.types()[0], m.Tool, m.Arg, p.Schema.Type)
	}
	return nil
}

type perturbToolArg struct {
	mission.NoSeams
	agent  mission.Agent
	tool   string
	arg    string
	change Change
	oracle *mission.Oracle
}

var _ mission.Seams = (*perturbToolArg)(nil)

func newPerturbToolArg(m *Mutant, o *mission.Oracle) mission.Seams {
	return &perturbToolArg{agent: mission.Agent(m.Agent), tool: m.Tool, arg: m.Arg, change: Change(m.Change), oracle: o}
}

func (s *perturbToolArg) ToolArgs(agent mission.Agent, tool, _ string, args sandbox.Args) {
	if agent != s.agent || tool != s.tool || args == nil {
		return
	}
	s.oracle.Reach()
	v, ok := args[s.arg]
	if !ok || v == nil {
		return
	}
	if nv, changed := s.change.apply(v); changed {
		args[s.arg] = nv
	}
}
