package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
)

func newCompareCmd(g *globals) *cobra.Command {
	var (
		all      bool
		sections []string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Compare two runs side by side: protocols, versions, detection, localisation, false alarms, hypotheses, costs",
		Long: `Compare two run folders: their manifests (protocol, settings, versions of baton,
Go and the mission, input hashes) and every table of their results.json, side by
side, each difference marked: "*" a row whose values differ (shown "A → B", with
the change for numbers), "-" a row only RUN_A has, "+" one only RUN_B has.

results.json is read generically: every key it has is compared, those added
after this baton was written included. Rows are matched by their leading text and
integer fields (design, class, build, ...). Tables of up to 40 rows are shown
whole; longer ones (detection by scenario, pass^k, ...) as a count of the rows
that differ, unless --all or --section names them. Nothing is written.`,
		Args: exactArgs(2, "RUN_A and RUN_B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs [2]runDoc
			for i, dir := range args {
				d, err := readRunDoc(dir)
				if err != nil {
					return err
				}
				runs[i] = d
			}
			cmp := compareRuns(runs[0], runs[1])
			if len(sections) > 0 {
				var keep []section
				for _, s := range cmp {
					if slices.Contains(sections, s.Name) {
						keep = append(keep, s)
					}
				}
				if len(keep) == 0 {
					var names []string
					for _, s := range cmp {
						names = append(names, s.Name)
					}
					return &usageError{fmt.Errorf("--section %s: the runs have %s", strings.Join(sections, ","), strings.Join(names, ", "))}
				}
				cmp, all = keep, true
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					A        string    `json:"a"`
					B        string    `json:"b"`
					Sections []section `json:"sections"`
				}{args[0], args[1], cmp})
			}
			return writeComparison(g.stdout, args[0], args[1], cmp, all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "show every row of every table, long ones too")
	cmd.Flags().StringSliceVar(&sections, "section", nil, "show only these sections, whole (manifest, protocol, detection, ...)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

// runDoc is what compare reads of a run folder.
type runDoc struct {
	manifest, results *node
}

func readRunDoc(dir string) (runDoc, error) {
	var d runDoc
	for _, f := range []struct {
		name string
		dst  **node
	}{{experiment.ManifestFile, &d.manifest}, {experiment.ResultsFile, &d.results}} {
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return d, fmt.Errorf("compare: %w", err)
		}
		n, err := decodeNode(data)
		if err != nil {
			return d, fmt.Errorf("compare: %s: %w", filepath.Join(dir, f.name), err)
		}
		if n.kind != objectNode {
			return d, fmt.Errorf("compare: %s: not a JSON object", filepath.Join(dir, f.name))
		}
		*f.dst = n
	}
	return d, nil
}

// node is a JSON value that keeps its objects' key order.
type node struct {
	kind   nodeKind
	keys   []string // objects
	fields map[string]*node
	items  []*node // arrays
	scalar string  // numbers as written, strings, true, false, null
	isText bool    // the scalar is a string
}

type nodeKind int

const (
	scalarNode nodeKind = iota
	objectNode
	arrayNode
)

// decodeNode decodes one JSON document.
func decodeNode(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the document")
	}
	return n, nil
}

func decodeValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: objectNode, fields: map[string]*node{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := n.fields[k]; !dup {
					n.keys = append(n.keys, k)
				}
				n.fields[k] = v
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: arrayNode}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token()
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &node{scalar: t, isText: true}, nil
	case json.Number:
		return &node{scalar: t.String()}, nil
	case bool:
		return &node{scalar: strconv.FormatBool(t)}, nil
	case nil:
		return &node{scalar: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// text renders a value on one line: scalars as they are, arrays of up to
// eight scalars in brackets, anything else as compact JSON.
func (n *node) text() string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case scalarNode:
		return n.scalar
	case arrayNode:
		var parts []string
		for _, it := range n.items {
			if it.kind != scalarNode {
				return n.json()
			}
			parts = append(parts, it.scalar)
		}
		if len(parts) > 8 {
			return "[" + strings.Join(parts[:3], ", ") + ", … " + parts[len(parts)-1] + " (" + strconv.Itoa(len(parts)) + ")]"
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return n.json()
}

func (n *node) json() string {
	var b strings.Builder
	n.appendJSON(&b)
	return b.String()
}

func (n *node) appendJSON(b *strings.Builder) {
	switch n.kind {
	case scalarNode:
		if n.isText {
			q, _ := json.Marshal(n.scalar)
			b.Write(q)
		} else {
			b.WriteString(n.scalar)
		}
	case arrayNode:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.appendJSON(b)
		}
		b.WriteByte(']')
	case objectNode:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			n.fields[k].appendJSON(b)
		}
		b.WriteByte('}')
	}
}

// flatten lists an object's leaves as dotted paths, arrays of scalars as
// one leaf, in key order.
func (n *node) flatten(prefix string, out *[]leaf) {
	if n.kind != objectNode {
		*out = append(*out, leaf{prefix, n})
		return
	}
	for _, k := range n.keys {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		n.fields[k].flatten(p, out)
	}
}

type leaf struct {
	path string
	v    *node
}

// section is one compared part: the manifest, or a key of results.json.
type section struct {
	Name string `json:"name"`
	// Keys are the fields that match rows (tables only).
	Keys []string `json:"keys,omitempty"`
	Rows []cmpRow `json:"rows"`
	// Table is set for a key whose value is an array of objects.
	Table bool `json:"table"`
}

// cmpRow is one compared row: its key values, where it is (both, "a"
// only or "b" only) and its cells.
type cmpRow struct {
	Key   []string  `json:"key,omitempty"`
	Only  string    `json:"only,omitempty"`
	Cells []cmpCell `json:"cells"`
}

type cmpCell struct {
	Field   string `json:"field"`
	A       string `json:"a"`
	B       string `json:"b"`
	Differs bool   `json:"differs"`
}

func (r *cmpRow) differs() bool {
	if r.Only != "" {
		return true
	}
	for _, c := range r.Cells {
		if c.Differs {
			return true
		}
	}
	return false
}

// compareRuns compares two runs' manifests and results, key by key.
func compareRuns(a, b runDoc) []section {
	out := []section{compareObjects("manifest", a.manifest, b.manifest)}
	for _, k := range unionKeys(a.results, b.results) {
		av, bv := a.results.fields[k], b.results.fields[k]
		switch {
		case isTable(av) || isTable(bv):
			out = append(out, compareTables(k, av, bv))
		case (av != nil && av.kind == objectNode) || (bv != nil && bv.kind == objectNode):
			out = append(out, compareObjects(k, av, bv))
		default:
			out = append(out, compareValues(k, av, bv))
		}
	}
	return out
}

func unionKeys(a, b *node) []string {
	keys := slices.Clone(a.keys)
	for _, k := range b.keys {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// isTable reports whether n is a non-empty array of objects.
func isTable(n *node) bool {
	if n == nil || n.kind != arrayNode || len(n.items) == 0 {
		return false
	}
	for _, it := range n.items {
		if it.kind != objectNode {
			return false
		}
	}
	return true
}

// compareObjects compares two objects leaf by leaf (a missing side is
// empty).
func compareObjects(name string, a, b *node) section {
	var la, lb []leaf
	if a != nil {
		a.flatten("", &la)
	}
	if b != nil {
		b.flatten("", &lb)
	}
	s := section{Name: name}
	s.Rows = []cmpRow{{Cells: compareLeaves(la, lb)}}
	return s
}

// compareLeaves pairs leaves by path, in A's order then B's new ones.
func compareLeaves(la, lb []leaf) []cmpCell {
	bm := map[string]*node{}
	for _, l := range lb {
		bm[l.path] = l.v
	}
	seen := map[string]bool{}
	var cells []cmpCell
	for _, l := range la {
		seen[l.path] = true
		cells = append(cells, cell(l.path, l.v, bm[l.path]))
	}
	for _, l := range lb {
		if !seen[l.path] {
			cells = append(cells, cell(l.path, nil, l.v))
		}
	}
	return cells
}

func cell(field string, a, b *node) cmpCell {
	at, bt := a.text(), b.text()
	return cmpCell{Field: field, A: at, B: bt, Differs: (a == nil) != (b == nil) || a.json() != b.json()}
}

// compareValues compares a scalar, or an array of scalars as a set of
// lines (warnings, trace items).
func compareValues(name string, a, b *node) section {
	s := section{Name: name}
	if (a == nil || a.kind == arrayNode) && (b == nil || b.kind == arrayNode) {
		var as, bs []string
		if a != nil {
			for _, it := range a.items {
				as = append(as, it.text())
			}
		}
		if b != nil {
			for _, it := range b.items {
				bs = append(bs, it.text())
			}
		}
		for _, x := range as {
			if slices.Contains(bs, x) {
				s.Rows = append(s.Rows, cmpRow{Key: []string{x}})
			} else {
				s.Rows = append(s.Rows, cmpRow{Key: []string{x}, Only: "a"})
			}
		}
		for _, x := range bs {
			if !slices.Contains(as, x) {
				s.Rows = append(s.Rows, cmpRow{Key: []string{x}, Only: "b"})
			}
		}
		return s
	}
	s.Rows = []cmpRow{{Cells: []cmpCell{cell(name, a, b)}}}
	return s
}

// compareTables matches two arrays of objects row by row, by the
// shortest run of leading text and integer fields that tells the rows of
// each run apart (row number when none does).
func compareTables(name string, a, b *node) section {
	var ra, rb []*node
	if a != nil && a.kind == arrayNode {
		ra = a.items
	}
	if b != nil && b.kind == arrayNode {
		rb = b.items
	}
	keys := tableKeys(ra, rb)
	s := section{Name: name, Keys: keys, Table: true}
	keyOf := func(i int, r *node) string {
		if len(keys) == 0 {
			return "#" + strconv.Itoa(i+1)
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, r.fields[k].text())
		}
		return strings.Join(parts, "\x00")
	}
	bIndex := map[string]*node{}
	for i, r := range rb {
		bIndex[keyOf(i, r)] = r
	}
	matched := map[string]bool{}
	row := func(k string, ar, br *node) cmpRow {
		cr := cmpRow{Key: strings.Split(k, "\x00")}
		switch {
		case ar == nil:
			cr.Only = "b"
		case br == nil:
			cr.Only = "a"
		}
		var la, lb []leaf
		if ar != nil {
			ar.flatten("", &la)
		}
		if br != nil {
			br.flatten("", &lb)
		}
		for _, c := range compareLeaves(la, lb) {
			if !slices.Contains(keys, c.Field) {
				cr.Cells = append(cr.Cells, c)
			}
		}
		return cr
	}
	for i, r := range ra {
		k := keyOf(i, r)
		br := bIndex[k]
		matched[k] = br != nil
		s.Rows = append(s.Rows, row(k, r, br))
	}
	for i, r := range rb {
		if k := keyOf(i, r); !matched[k] {
			s.Rows = append(s.Rows, row(k, nil, r))
		}
	}
	return s
}

// tableKeys returns the shortest prefix of the table's key candidates
// that tells each table's rows apart: first the text fields, then the
// integer ones, each in the order the rows have them (a field some rows
// lack, added by a later baton, counts as empty there).
func tableKeys(ra, rb []*node) []string {
	rows := append(slices.Clone(ra), rb...)
	var fields []string
	for _, r := range rows {
		for _, k := range r.keys {
			if !slices.Contains(fields, k) {
				fields = append(fields, k)
			}
		}
	}
	kind := func(f string) int { // 0 text, 1 integer, 2 neither
		k := -1
		for _, r := range rows {
			v := r.fields[f]
			if v == nil {
				continue
			}
			vk := 2
			switch {
			case v.kind != scalarNode:
			case v.isText:
				vk = 0
			case v.scalar != "null" && v.scalar != "true" && v.scalar != "false" && !strings.ContainsAny(v.scalar, ".eE"):
				vk = 1
			}
			if k >= 0 && vk != k {
				return 2
			}
			k = vk
		}
		return k
	}
	var text, ints []string
	for _, f := range fields {
		switch kind(f) {
		case 0:
			text = append(text, f)
		case 1:
			ints = append(ints, f)
		}
	}
	cand := append(text, ints...)
	unique := func(rows []*node, keys []string) bool {
		seen := map[string]bool{}
		for _, r := range rows {
			var parts []string
			for _, k := range keys {
				parts = append(parts, r.fields[k].text())
			}
			k := strings.Join(parts, "\x00")
			if seen[k] {
				return false
			}
			seen[k] = true
		}
		return true
	}
	for n := 1; n <= len(cand); n++ {
		if unique(ra, cand[:n]) && unique(rb, cand[:n]) {
			return cand[:n]
		}
	}
	return nil
}

// maxShown is the longest table shown whole without --all.
const maxShown = 40

// writeComparison prints a comparison as text.
func writeComparison(w io.Writer, dirA, dirB string, secs []section, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "A: %s\nB: %s\n", dirA, dirB)
	for _, s := range secs {
		differ := 0
		for i := range s.Rows {
			if s.Rows[i].differs() {
				differ++
			}
		}
		fmt.Fprintf(tw, "\n## %s", s.Name)
		if s.Table || len(s.Keys) > 0 || len(s.Rows) > 1 {
			fmt.Fprintf(tw, " (%d rows, %d differ)", len(s.Rows), differ)
		} else if differ == 0 {
			fmt.Fprint(tw, " (same)")
		}
		fmt.Fprintln(tw)
		if s.Table && len(s.Rows) > maxShown && !all {
			fmt.Fprintf(tw, "(long: shown with --all or --section %s)\n", s.Name)
			continue
		}
		if !s.Table && len(s.Rows) == 1 && len(s.Rows[0].Cells) > maxFields && !all {
			s = briefObject(s)
		}
		writeSection(tw, s)
	}
	return tw.Flush()
}

// maxFields is the most fields of an object (the manifest) shown whole
// without --all; a longer one shows its differing fields and headline
// fields only.
const maxFields = 24

// headline are the fields of a long object shown even when the runs agree:
// what identifies a run.
var headline = []string{"protocol.name", "protocol.sha256", "protocol.locked", "seed", "trials", "baton", "go",
	"mission.name", "mission.version", "hashes.catalogue", "hashes.scenarios", "hashes.contracts", "items", "complete", "valid"}

// briefObject keeps an object section's differing and headline fields.
func briefObject(s section) section {
	var cells []cmpCell
	same := 0
	for _, c := range s.Rows[0].Cells {
		if c.Differs || slices.Contains(headline, c.Field) {
			cells = append(cells, c)
		} else {
			same++
		}
	}
	cells = append(cells, cmpCell{Field: "…", A: fmt.Sprintf("%d more fields, the same in both (--all shows them)", same)})
	s.Rows = []cmpRow{{Cells: cells}}
	return s
}

func writeSection(tw *tabwriter.Writer, s section) {
	switch {
	case s.Table:
		var fields []string
		for _, r := range s.Rows {
			for _, c := range r.Cells {
				if !slices.Contains(fields, c.Field) {
					fields = append(fields, c.Field)
				}
			}
		}
		header := append(append([]string{""}, s.Keys...), fields...)
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		for _, r := range s.Rows {
			line := []string{mark(&r)}
			for _, k := range r.Key {
				line = append(line, orDash(k))
			}
			for _, f := range fields {
				text := ""
				if i := slices.IndexFunc(r.Cells, func(c cmpCell) bool { return c.Field == f }); i >= 0 {
					text = shorten(pairText(r.Cells[i], r.Only))
				}
				line = append(line, text)
			}
			fmt.Fprintln(tw, strings.Join(line, "\t"))
		}
	case len(s.Rows) == 1 && s.Rows[0].Key == nil:
		for _, c := range s.Rows[0].Cells {
			m := " "
			if c.Differs {
				m = "*"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", m, c.Field, shorten(pairText(c, "")))
		}
	default:
		for _, r := range s.Rows {
			fmt.Fprintf(tw, "%s\t%s\n", mark(&r), shorten(strings.Join(r.Key, " ")))
		}
	}
}

func mark(r *cmpRow) string {
	switch {
	case r.Only == "a":
		return "-"
	case r.Only == "b":
		return "+"
	case r.differs():
		return "*"
	}
	return " "
}

// pairText shows a cell: its value when both runs agree, else "A → B",
// with the change when both are numbers.
func pairText(c cmpCell, only string) string {
	switch {
	case only == "a":
		return c.A
	case only == "b":
		return c.B
	case !c.Differs:
		return c.A
	}
	s := orDash(c.A) + " → " + orDash(c.B)
	x, errA := strconv.ParseFloat(c.A, 64)
	y, errB := strconv.ParseFloat(c.B, 64)
	if errA == nil && errB == nil {
		d := strconv.FormatFloat(y-x, 'g', 4, 64)
		if y > x {
			d = "+" + d
		}
		s += " (" + d + ")"
	}
	return s
}

// shorten keeps a cell to one readable width.
func shorten(s string) string {
	const max = 72
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
