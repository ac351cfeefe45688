package mission

import "fmt"

// ForbiddenToolRule is the id of the breach every agent can commit besides
// its own rules: calling a tool the mission does not permit it.
const ForbiddenToolRule = "hard.forbidden_tool"

// Breach is one hard trajectory rule an agent's calls broke: the rule's id,
// what the breach says, and the index of the offending call.
type Breach struct {
	Rule    string
	Message string
	Call    int
}

// Breaches checks an agent's logical tool calls, in order, against the
// rules its scorecard holds whatever the scenario: only tools the mission
// permits it ([ForbiddenToolRule]), and its hard trajectory rules (a tool
// never called; a tool only after a successful call of another). A caller
// checks one turn's calls (the rules' unit), or an agent's calls on one item
// when its turns are not told apart. Breaches come in call order.
func (s *Spec) Breaches(agent Agent, calls []ToolCall) []Breach {
	var out []Breach
	var rules []Rule
	if as, ok := s.Agent(agent); ok {
		rules = as.Rules
	}
	succeeded := map[string]bool{}
	for i, c := range calls {
		if !s.Permitted(agent, c.Name) {
			out = append(out, Breach{ForbiddenToolRule, fmt.Sprintf("called %s, which %s may not call", c.Name, agent), i})
		}
		for _, r := range rules {
			if r.Tool != c.Name {
				continue
			}
			if r.Kind == RuleNever || r.Kind == RuleAfter && !succeeded[r.After] {
				out = append(out, Breach{r.ID, r.Message, i})
			}
		}
		if c.Error == "" {
			succeeded[c.Name] = true
		}
	}
	return out
}
