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
const UnitResultSchema = "baton.unit-result/v2"

// unitResult is a unit's answer on the wire: the items its key asked
// for (every item of the unit when it names no slots), by slot (0 the
// observation run, then the designs in plan order), and how many mission
// runs executing them executed (integrated and core runs alone, each run
// shared within the unit once).
type unitResult struct {
	Schema string      `json:"schema"`
	Unit   string      `json:"unit"`
	Rows   []unitItem  `json:"rows"`
	Runs   int         `json:"runs"`
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
// stored, sealed for the writer, and marks them stored; it returns the
// answer's runs too. Every item of the unit not yet stored must be there,
// each item once, in slot order, naming the unit; nothing is marked when
// the answer is refused.
func (k *remoteSink) decode(u unit, data []byte) ([]row, int, error) {
	pl := k.pl
	var res unitResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, 0, err
	}
	key := pl.unitKey(u)
	switch {
	case res.Schema != UnitResultSchema:
		return nil, 0, fmt.Errorf("schema %q, want %q", res.Schema, UnitResultSchema)
	case res.Unit != key:
		return nil, 0, fmt.Errorf("answers unit %q, not %q", res.Unit, key)
	}
	b, sc := pl.builds[u.build].Info, pl.scenarios[u.scenario]
	gz := map[string][]byte{}
	next := 0 // the first slot the answer may hold next
	for _, x := range res.Rows {
		if x.Slot < next || x.Slot >= pl.slots() {
			return nil, 0, fmt.Errorf("item of slot %d: want slots in order, from %d to %d", x.Slot, next, pl.slots()-1)
		}
		for ; next < x.Slot; next++ {
			if !k.done.has(itemIndex(pl, u.index, next)) {
				return nil, 0, fmt.Errorf("no item of slot %d", next)
			}
		}
		next++
		design := ""
		if x.Slot > 0 {
			design = pl.designs[x.Slot-1].ID
		}
		if it := x.Item; it.Build != b.ID || it.Design != design || it.Scenario != sc.ID || it.Trial != u.trial {
			return nil, 0, fmt.Errorf("item of slot %d is %s, want %s", x.Slot, ItemID(it.Build, it.Design, it.Scenario, it.Trial), ItemID(b.ID, design, sc.ID, u.trial))
		}
		if x.TraceGZ != nil {
			gz[x.TraceSHA] = x.TraceGZ
		}
	}
	for ; next < pl.slots(); next++ {
		if !k.done.has(itemIndex(pl, u.index, next)) {
			return nil, 0, fmt.Errorf("no item of slot %d", next)
		}
	}
	if err := k.models.take(res.Models); err != nil {
		return nil, 0, err
	}
	var rows []row
	var buf bytes.Buffer
	var zr *gzip.Reader
	for _, x := range res.Rows {
		ord := itemIndex(pl, u.index, x.Slot)
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
				return nil, 0, fmt.Errorf("item %s: its kept trace %s has no bytes", r.id, short(x.TraceSHA))
			}
			if err := gunzip(&buf, zr, z); err != nil {
				return nil, 0, fmt.Errorf("item %s: trace: %w", r.id, err)
			}
			if _, ok := checkTrace(TraceHashAlgorithm, buf.Bytes(), x.TraceSHA); !ok {
				return nil, 0, fmt.Errorf("item %s: its trace does not hash to %s", r.id, short(x.TraceSHA))
			}
			r.traceLine = appendTraceLine(nil, r.id, buf.Bytes())
		}
		r.seal(u, &k.scratch)
		rows = append(rows, r)
	}
	for _, r := range rows {
		k.done.set(r.ord)
	}
	return rows, res.Runs, nil
}

// encodeUnit writes the outcomes of a unit's slots, and the runs they
// executed, as its answer.
func encodeUnit(key string, slots []int, outs []*outcome, lines []bool, runs int, models *unitModels) ([]byte, error) {
	res := unitResult{Schema: UnitResultSchema, Unit: key, Rows: make([]unitItem, len(outs)), Runs: runs, Models: models}
	for i, o := range outs {
		r := &o.row
		res.Rows[i] = unitItem{Slot: slots[i], Item: r.item, Findings: r.findings,
			TraceSHA: r.traceSHA, TraceLen: r.traceLen, TraceGZ: r.traceGZ, Line: lines[i] && r.traceSHA != ""}
	}
	return json.Marshal(res)
}
