package experiment

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// UnitResultSchema identifies the layout of a unit's answer.
const UnitResultSchema = "baton.unit-result/v1"

// unitResult is a unit's answer on the wire: every item of the unit, by
// slot (0 the observation run, then the designs in plan order).
type unitResult struct {
	Schema string      `json:"schema"`
	Unit   string      `json:"unit"`
	Rows   []unitItem  `json:"rows"`
	Models *unitModels `json:"models,omitempty"`
}

// unitItem is one item of a unit's answer: the row as a local worker
// hands it to the writer. A trace several items share carries its bytes
// (gzipped) on the first; Line marks an item whose trace bytes the run
// keeps, so a fresh sweep writes its line of traces/<build>.jsonl.
type unitItem struct {
	Slot     int               `json:"slot"`
	Item     reports.Item      `json:"item"`
	Findings []designs.Finding `json:"findings,omitempty"`
	TraceSHA string            `json:"trace_sha256,omitempty"`
	TraceLen int               `json:"trace_len,omitempty"`
	TraceGZ  []byte            `json:"trace_gz,omitempty"`
	Line     bool              `json:"line,omitempty"`
}

// decode reads an answer to unit u into the rows of the items not yet
// stored, sealed for the writer, and marks them stored. Every item of the
// unit must be there, once, and name the unit; nothing is marked when
// the answer is refused.
func (k *remoteSink) decode(u unit, data []byte) ([]row, error) {
	pl := k.pl
	var res unitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, err
	}
	key := pl.unitKey(u)
	switch {
	case res.Schema != UnitResultSchema:
		return nil, fmt.Errorf("schema %q, want %q", res.Schema, UnitResultSchema)
	case res.Unit != key:
		return nil, fmt.Errorf("answers unit %q, not %q", res.Unit, key)
	case len(res.Rows) != pl.slots():
		return nil, fmt.Errorf("%d items, the unit has %d", len(res.Rows), pl.slots())
	}
	b, sc := pl.builds[u.build].Info, pl.scenarios[u.scenario]
	gz := map[string][]byte{}
	for slot, x := range res.Rows {
		design := ""
		if slot > 0 {
			design = pl.designs[slot-1].ID
		}
		it := x.Item
		if x.Slot != slot || it.Build != b.ID || it.Design != design || it.Scenario != sc.ID || it.Trial != u.trial {
			return nil, fmt.Errorf("item %d is %s (slot %d), want %s", slot, ItemID(it.Build, it.Design, it.Scenario, it.Trial), x.Slot, ItemID(b.ID, design, sc.ID, u.trial))
		}
		if x.TraceGZ != nil {
			gz[x.TraceSHA] = x.TraceGZ
		}
	}
	if err := k.models.take(res.Models); err != nil {
		return nil, err
	}
	var rows []row
	var buf bytes.Buffer
	var zr *gzip.Reader
	for slot, x := range res.Rows {
		ord := itemIndex(pl, u.index, slot)
		if k.done.has(ord) {
			continue
		}
		r := row{ord: ord, id: ItemID(x.Item.Build, x.Item.Design, x.Item.Scenario, x.Item.Trial), item: x.Item, findings: x.Findings,
			traceSHA: x.TraceSHA, traceLen: x.TraceLen, traceGZ: x.TraceGZ}
		// The stream fills these from the plan; so does a local sweep.
		r.item.Class, r.item.Location, r.item.Category = b.Class, b.Location, string(sc.Category)
		if k.lines && x.Line {
			z, ok := gz[x.TraceSHA]
			if !ok {
				return nil, fmt.Errorf("item %s: its kept trace %s has no bytes", r.id, short(x.TraceSHA))
			}
			if err := gunzip(&buf, zr, z); err != nil {
				return nil, fmt.Errorf("item %s: trace: %w", r.id, err)
			}
			if _, ok := checkTrace(TraceHashAlgorithm, buf.Bytes(), x.TraceSHA); !ok {
				return nil, fmt.Errorf("item %s: its trace does not hash to %s", r.id, short(x.TraceSHA))
			}
			r.traceLine = appendTraceLine(nil, r.id, buf.Bytes())
		}
		r.seal(u, &k.scratch)
		rows = append(rows, r)
	}
	for _, r := range rows {
		k.done.set(r.ord)
	}
	return rows, nil
}

// encodeUnit writes a unit's outcomes as its answer.
func encodeUnit(key string, outs []*outcome, lines []bool, models *unitModels) ([]byte, error) {
	res := unitResult{Schema: UnitResultSchema, Unit: key, Rows: make([]unitItem, len(outs)), Models: models}
	for slot, o := range outs {
		r := &o.row
		res.Rows[slot] = unitItem{Slot: slot, Item: r.item, Findings: r.findings,
			TraceSHA: r.traceSHA, TraceLen: r.traceLen, TraceGZ: r.traceGZ, Line: lines[slot] && r.traceSHA != ""}
	}
	return json.Marshal(res)
}
