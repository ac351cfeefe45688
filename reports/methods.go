package reports

import (
	"fmt"
	"slices"
	"strings"
)

// Methods is what a run was, for the methods and limitations section of
// every report: the mission and its version, what each agent's core was,
// the designs, and any limits beyond the protocol's own.
type Methods struct {
	Mission MissionInfo  `json:"mission"`
	Cores   []CoreInfo   `json:"cores"`
	Designs []DesignInfo `json:"designs"`
	// Limits are what this run cannot show beyond the protocol's own
	// [ProtocolLimits] (a mission's or a core's), one sentence each.
	Limits []string `json:"limits"`
}

// MissionInfo names the mission a run executed and its version.
type MissionInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Core kinds.
const (
	// CorePolicy is a deterministic policy whose mistakes are seeded slips.
	CorePolicy = "policy"
	// CoreModel is a model behind a chat-completions endpoint.
	CoreModel = "model"
)

// CoreInfo is one agent's core: its kind ([CorePolicy] or [CoreModel]),
// for a model its id and prompt file's hash, and a detail such as a
// policy's slip rates.
type CoreInfo struct {
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Model  string `json:"model,omitempty"`
	Prompt string `json:"prompt_sha256,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// DesignInfo is one evaluation design as its definition states it.
type DesignInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Doc  string `json:"doc"`
	// Base is the base design of a variant ("A" for "A.wire"); Params its
	// modelling choices ("scorecard wire, inputs golden").
	Base   string `json:"base,omitempty"`
	Params string `json:"params,omitempty"`
	// Blames lists the kinds of location the design's definition can name
	// ("agent", "edge"); nil when not recorded.
	Blames []string `json:"blames,omitempty"`
}

// ProtocolLimits are the protocol's own "Limits: what this cannot show"
// (seed 002, the experiment protocol), quoted: every report repeats them.
var ProtocolLimits = []string{
	"We only seed the defects we thought of. Real failures may be stranger. Defect classes found later in production should be added to the set.",
	"One reference mission. Results may not transfer to missions with more agents, longer chains or human steps in the middle.",
	"Simulators are kinder than real systems. Sandboxes rarely reproduce the full range of real errors and delays.",
	"Graders can share blind spots with the agents they grade, especially when both use the same model family.",
	"Small samples are noisy. Rates from a few runs per scenario need intervals, not single numbers.",
}

// methodsPart is one titled list of the methods section; the renderers
// escape every item.
type methodsPart struct {
	Title string
	Items []string
}

// methodsSection writes the methods and limitations section: what ran,
// the units of analysis and interval methods, the hypothesis clauses that
// hold by definition of a design, and what the run cannot show.
func methodsSection(r *Results) []methodsPart {
	return []methodsPart{
		{"What ran", whatRan(r)},
		{"Units of analysis and intervals", unitsAndIntervals(r)},
		{"Clauses that hold by definition of a design", byDefinition(r)},
		{"What this run cannot show", limits(r)},
	}
}

func whatRan(r *Results) []string {
	m := r.Methods
	var out []string
	if m.Mission.Name != "" {
		out = append(out, fmt.Sprintf("Mission %s, version %s.", m.Mission.Name, orDash(m.Mission.Version)))
	} else {
		out = append(out, "Mission: not recorded.")
	}
	if len(m.Cores) == 0 {
		out = append(out, "Cores: not recorded.")
	}
	for _, c := range m.Cores {
		s := fmt.Sprintf("Core of %s: %s", c.Agent, coreKind(c.Kind))
		if c.Model != "" {
			s += ", model " + c.Model
		}
		if c.Prompt != "" {
			s += ", prompt sha256 " + c.Prompt
		}
		if c.Detail != "" {
			s += "; " + c.Detail
		}
		out = append(out, s+".")
	}
	for _, d := range m.Designs {
		out = append(out, fmt.Sprintf("Design %s (%s): %s", d.ID, d.Name, d.Doc))
	}
	return out
}

func coreKind(k string) string {
	switch k {
	case CorePolicy:
		return "a deterministic policy with seeded slips"
	case CoreModel:
		return "a model"
	}
	return orDash(k)
}

// unitsAndIntervals states the unit of analysis and every interval method,
// with the run's own numbers of mutants and trials.
func unitsAndIntervals(r *Results) []string {
	var per []string
	seen := map[string]bool{}
	for _, d := range r.Detection {
		if !seen[d.Class] {
			seen[d.Class] = true
			per = append(per, fmt.Sprintf("%s %d", d.Class, d.Mutants))
		}
	}
	mutants := "no mutants"
	if len(per) > 0 {
		mutants = strings.Join(per, ", ")
	}
	return []string{
		fmt.Sprintf("The unit of analysis is the mutant (per class: %s), with the %d trials of each nested inside it: trials of one mutant differ only in seeded slips and faults, so they are repeated measurements of one defect, not independent defects.", mutants, r.Protocol.Trials),
		"Class rates (detection, localisation) are the mean over the class's mutants of each mutant's rate over its trials, with the 95% Wilson interval on n = the number of mutants: a cluster-level analysis (Donner & Klar 2000) at Korn & Graubard's (1998) effective sample size for the largest design effect trials nested in mutants can have, valid whatever the intra-class correlation. A class of m mutants each detected in every trial gets Wilson's m/m, for 4 mutants [0.51–1].",
		"The trial-level rate over the (mutant × trial) suite runs, with its Wilson interval, stands beside each class rate: it is conditional on these very mutants and says nothing of the class's other defects.",
		"Differences between designs on the same mutants and trials (common random numbers) use Newcombe's (1998) paired square-and-add interval on the mutants' 2×2 table, each mutant adding its trials' shares of the four cells; McNemar's exact test runs on the mutants (a mutant is discordant when one design detected it in more trials), with the trial-level exact test beside it; both are Holm-adjusted (Holm 1979) over the run's family of design-pair × class tests. H2 and H3 decide on the paired intervals.",
		"H1 compares design A on two disjoint sets of mutants (hand-off classes and the control) with Newcombe's (1998) hybrid score interval for independent samples on the two clustered rates.",
		"Agreement with reviewers is Cohen's kappa (1960) with its large-sample 95% interval, kappa ± 1.96·SE, SE by Fleiss, Cohen & Everitt (1969).",
		"pass^k is the unbiased estimator C(c,k)/C(n,k) over a scenario's trials (Yao et al. 2024); false alarms are over clean-build suite runs; every figure is computed from unrounded values, and results.json keeps them at full precision.",
	}
}

// byDefinition lists the hypothesis clauses a design's definition settles
// rather than the runs: from the kinds of location each design declares
// it can blame, else (a design that declared none) from what its flagged
// items blamed.
func byDefinition(r *Results) []string {
	var out []string
	flagged := map[string]BlameRow{}
	for _, b := range r.Blames {
		flagged[b.Design] = b
	}
	declared := map[string]bool{}
	for _, d := range r.Methods.Designs {
		if d.Blames == nil {
			continue
		}
		declared[d.ID] = true
		if slices.Contains(d.Blames, "edge") {
			continue
		}
		s := fmt.Sprintf("Design %s cannot name an edge: its definition blames only %s (“%s”), and it named an edge in %d of its %d flagged items",
			d.ID, strings.Join(d.Blames, ", "), d.Doc, flagged[d.ID].Edge, flagged[d.ID].Flagged)
		out = append(out, s+noEdgeConsequence(r, d.ID))
	}
	for _, b := range r.Blames {
		if declared[b.Design] || b.Flagged == 0 || b.Edge > 0 {
			continue
		}
		s := fmt.Sprintf("Design %s named no edge in any of its %d flagged items", b.Design, b.Flagged)
		out = append(out, s+noEdgeConsequence(r, b.Design))
	}
	if len(out) == 0 {
		out = append(out, "None found in this run: every design can name an edge, and every design that flagged something named one at least once.")
	}
	return out
}

// noEdgeConsequence says what a design that names no edge settles: its
// hand-off localisation, and the clauses of the hypotheses stated on it.
func noEdgeConsequence(r *Results, id string) string {
	s := ": its exact localisation of the hand-off classes, whose ground truth is an edge, is 0 by what it can blame, not by what the mutants did."
	th := r.Thresholds.Named()
	if th.H2Baseline == id {
		s += fmt.Sprintf(" So H2's localisation clause compares %s with a floor %s cannot rise from.", th.H2Design, id)
	}
	if th.H3Baseline == id {
		s += fmt.Sprintf(" H3's share of %s's runs without exact localisation is 1 on every hand-off mutant by definition; only the control mutants (an agent's fault) measure %s's localisation.", id, id)
	}
	if th.H2Design == id || th.H3Design == id {
		s += fmt.Sprintf(" H2 and H3 are stated on %s as the localising design: their localisation clauses cannot hold.", id)
	}
	return s
}

// limits lists what the run cannot show: the protocol's own limits, then
// those that follow from how this run was made.
func limits(r *Results) []string {
	out := make([]string, 0, len(ProtocolLimits)+4)
	for _, l := range ProtocolLimits {
		out = append(out, "From the protocol: “"+l+"”")
	}
	policies := len(r.Methods.Cores) > 0
	for _, c := range r.Methods.Cores {
		policies = policies && c.Kind == CorePolicy
	}
	if policies {
		out = append(out, "Every core is a deterministic policy whose mistakes are seeded slips of kinds chosen in advance: the rates say how the designs fare against these mistakes and these mutants, not against a model's own errors.")
	}
	out = append(out, fmt.Sprintf("Trials of a mutant differ only in seeded slips and faults: more trials sharpen the trial-level rates of these mutants but not the class rates, whose n is the number of mutants (%d in this run).", mutantCount(r)))
	return append(out, r.Methods.Limits...)
}

func mutantCount(r *Results) int { return len(r.Mutants) }

// deviationLines are the lines the top of every report carries about the
// protocol's pre-registration: locked or not, and each deviation.
func deviationLines(p ProtocolInfo) []string {
	var out []string
	switch {
	case p.Locked && len(p.Deviations) == 0:
		out = append(out, "Pre-registered: the protocol was locked and the run followed it.")
	case p.Locked:
		out = append(out, fmt.Sprintf("DEVIATED from the locked protocol in %d setting%s:", len(p.Deviations), plural(len(p.Deviations))))
	default:
		out = append(out, "Not pre-registered: the protocol was not locked (baton protocol lock).")
	}
	for _, d := range p.Deviations {
		out = append(out, fmt.Sprintf("%s: locked %s, ran %s; reason: %s", d.Setting, d.Locked, d.Ran, d.Reason))
	}
	if p.InputsSHA256 != "" {
		out = append(out, "Inputs hash tree root "+p.InputsSHA256+" (the protocol and every file it names; manifest.json lists them).")
	}
	return out
}
