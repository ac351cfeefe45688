package experiment

import (
	"strings"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/reports"
)

// The protocol's checks for the designs: their variants, the hypotheses'
// designs and the cost weights. They are kept here, apart from the rest of
// the checks, so that they move as one piece.

// checkDesigns checks the designs list: at least one, each a design or
// variant id designs.Lookup knows, none twice.
func checkDesigns(d *input.Decoder, p *Protocol) {
	d.Check(!d.Has("designs") || p.Designs == nil || len(p.Designs) > 0, "designs",
		"empty: want at least one of %s (or a variant, such as A.wire)", strings.Join(KnownDesigns, ", "))
	if !d.Strings("designs", p.Designs, "design", nil) {
		return
	}
	for i, id := range p.Designs {
		if _, err := designs.Lookup(id); err != nil {
			d.Errorf(input.Index("designs", i), "%v", err)
		}
	}
}

// checkCostWeights checks that every weight is 0 or more.
func checkCostWeights(d *input.Decoder, w *reports.CostWeights) {
	for _, key := range reports.CostWeightKeys() {
		x, _ := w.Weight(key)
		d.Check(*x >= 0, "cost_weights."+key, "%v: want 0 or more", *x)
	}
}

// checkHypothesisDesigns checks the thresholds keys naming the design a
// hypothesis is stated on (h1_design, h2_design, h2_baseline, h3_design,
// h3_baseline): each, when written, a design or variant designs.Lookup
// knows.
func checkHypothesisDesigns(d *input.Decoder, t *reports.Thresholds) {
	for _, c := range []struct {
		key string
		id  string
	}{{"h1_design", t.H1Design}, {"h2_design", t.H2Design}, {"h2_baseline", t.H2Baseline}, {"h3_design", t.H3Design}, {"h3_baseline", t.H3Baseline}} {
		path := "thresholds." + c.key
		if !d.Has(path) {
			continue
		}
		if _, err := designs.Lookup(c.id); err != nil {
			d.Errorf(path, "%v", err)
		}
	}
}
