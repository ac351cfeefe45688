package experiment

import (
	"strings"

	"go.yaml.in/yaml/v3"

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
