package experiment

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// The protocol's keys for the designs: their variants, the hypotheses'
// designs and the cost weights. They are kept here, apart from the rest of
// the decoder, so that they move as one piece.

// costWeights reads cost_weights: a weight per counter (reports'
// CostWeightKeys), each 0 or more, and the currency.
func (d *decoder) costWeights(v *yaml.Node, key string, w *reports.CostWeights) {
	d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
		f := key + "." + key2
		if key2 == "currency" {
			w.Currency, _ = d.str(v2, f)
			return
		}
		if x, ok := w.Weight(key2); ok {
			*x, _ = d.nonNegative(v2, f)
			return
		}
		if key2 == "per_sandbox_reset" {
			d.failf(k2.Line, f, "unknown field: resets are priced apart now, per_environment_reset (an integrated run's whole system of record) and per_fixture_reset (one agent's fixture)")
			return
		}
		d.failf(k2.Line, f, "unknown field (want %s or currency)", strings.Join(reports.CostWeightKeys(), ", "))
	})
}

// designs reads the designs list: at least one, each a design or variant
// id designs.Lookup knows, none twice.
func (d *decoder) designs(v *yaml.Node, key string) []string {
	ds := d.strList(v, key, nil)
	if n := deref(v); n.Kind == yaml.SequenceNode && len(ds) == 0 && len(n.Content) == 0 {
		d.failf(n.Line, key, "empty: want at least one of %s (or a variant, such as A.wire)", strings.Join(KnownDesigns, ", "))
	}
	out := ds[:0]
	for i, id := range ds {
		if _, err := designs.Lookup(id); err != nil {
			f := fmt.Sprintf("%s[%d]", key, i)
			d.failf(d.lines[f], f, "%v", err)
			continue
		}
		out = append(out, id)
	}
	return out
}

// hypothesisDesign reads a thresholds key naming the design a hypothesis
// is stated on (h1_design, h2_design, h2_baseline, h3_design,
// h3_baseline); it reports whether key is one.
func (d *decoder) hypothesisDesign(key string, v *yaml.Node, field string, t *reports.Thresholds) bool {
	dst := map[string]*string{"h1_design": &t.H1Design, "h2_design": &t.H2Design, "h2_baseline": &t.H2Baseline,
		"h3_design": &t.H3Design, "h3_baseline": &t.H3Baseline}[key]
	if dst == nil {
		return false
	}
	s, ok := d.str(v, field)
	if !ok {
		return true
	}
	if _, err := designs.Lookup(s); err != nil {
		d.failf(deref(v).Line, field, "%v", err)
		return true
	}
	*dst = s
	return true
}
