package mission

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/sandbox"
)

//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// scenarioReasons lists the reasons an expected outcome may give, by outcome.
var scenarioReasons = map[string][]string{
	sandbox.OutcomeEscalated: {ReasonSuspicious, ReasonUnknownSupplier, ReasonBankAccountChanged, ReasonPOSupplierMismatch, ReasonSystemUnavailable, ReasonVarianceUnexplained, ReasonNoPO, ReasonUnknownCurrency, ReasonAboveThreshold, ReasonReviewRequested, sandbox.ReasonToolRefused},
	sandbox.OutcomeRejected:  {ReasonDuplicateInvoice, sandbox.ReasonToolRefused},
	sandbox.OutcomeClosed:    {ReasonOutOfScope, ReasonStatement, ReasonCreditNote},
}

// scenarioReportKinds lists the kinds of exception report entry.
var scenarioReportKinds = []string{"escalation", "rejection", "refusal", "tool_failure"}

// ScenarioError is a problem in a scenario file, at a line and field.
type ScenarioError struct {
	File    string
	Line    int
	Field   string // dotted path, e.g. "S03.emails[1].attachment.gross"
	Problem string
}

func (e *ScenarioError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Problem)
}

var (
	scenariosOnce   sync.Once
	scenariosSet    []*Scenario
	scenariosErr    error
	scenariosDigest string
)

func loadDefaultScenarios() {
	names, err := fs.Glob(scenarioFS, "scenarios/*.yaml")
	if err != nil {
		scenariosErr = fmt.Errorf("load default scenarios: %w", err)
		return
	}
	slices.Sort(names)
	h := sha256.New()
	var files []scenarioFile
	for _, name := range names {
		data, err := scenarioFS.ReadFile(name)
		if err != nil {
			scenariosErr = fmt.Errorf("load default scenarios: %w", err)
			return
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		files = append(files, scenarioFile{name: name, data: data})
	}
	scenariosSet, scenariosErr = parseScenarioFiles(files)
	if scenariosErr == nil {
		// The reviewed goldens (scenarios/golden/*.json) are part of the suite.
		scenariosErr = attachDefaultGoldens(scenariosSet, h)
	}
	scenariosDigest = hex.EncodeToString(h.Sum(nil))
	if scenariosErr != nil {
		scenariosErr = fmt.Errorf("load default scenarios: %w", scenariosErr)
	}
}

// DefaultScenarios returns the embedded scenario suite, sorted by id. The
// files are parsed once; every call returns fresh deep copies, so callers
// may change what they get.
//
// Each scenario carries its reviewed per-agent goldens (Scenario.Golden)
// from scenarios/golden/<id>.json, recorded from the clean build by
// `go test ./mission -run TestGoldenFiles -update` and checked against the
// authored end state; designs score against them instead of recording.
// A scenario without a golden file recorded for its current version, like
// every scenario of [LoadScenarios], has no goldens, and designs record
// them on the fly with [RecordGolden].
func DefaultScenarios() ([]*Scenario, error) {
	scenariosOnce.Do(loadDefaultScenarios)
	if scenariosErr != nil {
		return nil, scenariosErr
	}
	out := make([]*Scenario, len(scenariosSet))
	for i, sc := range scenariosSet {
		out[i] = sc.Clone()
	}
	return out, nil
}

// ScenariosHash returns the hex SHA-256 of the embedded scenario files,
// then golden files (names and contents, in name order): it identifies the
// default suite in results.
func ScenariosHash() string {
	scenariosOnce.Do(loadDefaultScenarios)
	return scenariosDigest
}

// LoadScenarios reads scenario files; a directory contributes its *.yaml and
// *.yml files in name order. Ids must be unique across all files. The result
// is sorted by id.
func LoadScenarios(paths ...string) ([]*Scenario, error) {
	if len(paths) == 0 {
		return nil, errors.New("load scenarios: no paths")
	}
	var files []scenarioFile
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("load scenarios: %w", err)
		}
		names := []string{p}
		if info.IsDir() {
			names = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("load scenarios: %w", err)
			}
			for _, e := range entries {
				if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
					names = append(names, filepath.Join(p, e.Name()))
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("load scenarios: %s: no *.yaml files", p)
			}
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("load scenarios: %w", err)
			}
			files = append(files, scenarioFile{name: name, data: data})
		}
	}
	all, err := parseScenarioFiles(files)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	return all, nil
}

// ParseScenarios parses one scenario file's contents; name is used in error
// messages and Scenario.Source. Scenarios come back in file order, families
// expanded in place.
//
// A scenario file is one YAML document, a mapping with two keys:
//
//	defs:       # optional, free-form: a place for YAML anchors (&suppliers)
//	scenarios:  # a list of entries
//	  - id: S01 …            # a scenario
//	  - family: …            # a family, expanded into several scenarios
//
// A family is a template scenario and a list of members. Every member is a
// flat mapping of variables; the template's scalar values may refer to them
// as ${name}. Each member yields one scenario, in the order listed, with the
// member's variables substituted (a member must set "id", and every variable
// it sets must be used). Expansion is plain text substitution, so the same
// file always gives the same scenarios with the same ids. A value that is
// exactly one reference takes the type of what it is replaced by, quoted or
// not ("${qty}" in a flow mapping becomes the number 40).
//
//	scenarios:
//	  - family:
//	      name: typical-po
//	      template:
//	        id: ${id}
//	        title: PO-backed ${currency} invoice from ${supplier}
//	        …
//	      members:
//	        - {id: S06, currency: EUR, supplier: SUP-001, …}
//
// Decoding is strict: unknown keys, wrong types, missing required fields,
// unknown categories, duplicate ids, expected items naming an unknown email,
// tags without category: and currency:, invalid dates and amounts that do
// not add up are errors of the form "file:line: field: problem".
func ParseScenarios(name string, data []byte) ([]*Scenario, error) {
	p := &scenarioParser{file: name}
	out := p.parse(data)
	if err := p.err(); err != nil {
		return nil, fmt.Errorf("parse scenarios: %w", err)
	}
	return out, nil
}

// SelectScenarios returns the scenarios of all, in their order, whose id is
// in ids or which carry one of the include tags (every scenario when both
// are empty), minus those carrying an exclude tag. An id or tag that no
// scenario of all has is an error.
func SelectScenarios(all []*Scenario, ids, include, exclude []string) ([]*Scenario, error) {
	byID := map[string]bool{}
	tags := map[string]bool{}
	for _, sc := range all {
		byID[sc.ID] = true
		for _, t := range sc.Tags {
			tags[t] = true
		}
	}
	for _, id := range ids {
		if !byID[id] {
			return nil, fmt.Errorf("select scenarios: unknown id %q", id)
		}
	}
	for _, t := range slices.Concat(include, exclude) {
		if !tags[t] {
			return nil, fmt.Errorf("select scenarios: no scenario has tag %q", t)
		}
	}
	var out []*Scenario
	for _, sc := range all {
		in := len(ids) == 0 && len(include) == 0
		in = in || slices.Contains(ids, sc.ID) || scenarioHasAnyTag(sc, include)
		if in && !scenarioHasAnyTag(sc, exclude) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// HasTag reports whether the scenario carries tag.
func (sc *Scenario) HasTag(tag string) bool { return slices.Contains(sc.Tags, tag) }

func scenarioHasAnyTag(sc *Scenario, tags []string) bool {
	for _, t := range tags {
		if sc.HasTag(t) {
			return true
		}
	}
	return false
}

type scenarioFile struct {
	name string
	data []byte
}

// parseScenarioFiles parses files in order, rejects ids repeated across files and
// sorts the result by id.
func parseScenarioFiles(files []scenarioFile) ([]*Scenario, error) {
	var all []*Scenario
	seen := map[string]string{}
	var errs []error
	for _, f := range files {
		p := &scenarioParser{file: f.name}
		scs := p.parse(f.data)
		if err := p.err(); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, sc := range scs {
			if prev, ok := seen[sc.ID]; ok {
				file, line := splitScenarioSource(sc.Source)
				errs = append(errs, &ScenarioError{File: file, Line: line, Field: sc.ID + ".id", Problem: "duplicate id (first at " + prev + ")"})
				continue
			}
			seen[sc.ID] = sc.Source
			all = append(all, sc)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortStableFunc(all, func(a, b *Scenario) int { return compareScenarioIDs(a.ID, b.ID) })
	return all, nil
}

func splitScenarioSource(src string) (string, int) {
	i := strings.LastIndex(src, ":")
	if i < 0 {
		return src, 0
	}
	n, _ := strconv.Atoi(src[i+1:])
	return src[:i], n
}

// compareScenarioIDs orders ids naturally: "S9" before "S10".
func compareScenarioIDs(a, b string) int {
	pa, na := splitIDNumber(a)
	pb, nb := splitIDNumber(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func splitIDNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}

// scenarioMaxErrors bounds the problems reported for one file.
const scenarioMaxErrors = 20

// scenarioMaxNodes bounds the YAML nodes a file may expand to (aliases, families).
const scenarioMaxNodes = 200000

// scenarioParser parses one scenario file, collecting problems.
type scenarioParser struct {
	file string
	errs []error
	ids  map[string]int // id -> line of first definition
	seen map[yamlShapeKey]bool
	// budget counts nodes visited, against scenarioMaxNodes.
	budget int
}

type yamlShapeKey struct {
	n *yaml.Node
	t reflect.Type
}

func (p *scenarioParser) errorf(line int, field, format string, args ...any) {
	if len(p.errs) < scenarioMaxErrors {
		p.errs = append(p.errs, &ScenarioError{File: p.file, Line: line, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
}

func (p *scenarioParser) err() error { return errors.Join(p.errs...) }

func (p *scenarioParser) full() bool { return len(p.errs) >= scenarioMaxErrors }

func (p *scenarioParser) parse(data []byte) []*Scenario {
	p.ids = map[string]int{}
	p.seen = map[yamlShapeKey]bool{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(1, "scenarios", "file is empty")
		} else {
			p.errorf(yamlErrLine(err), "yaml", "%s", yamlErrText(err))
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			line = yamlErrLine(err)
		}
		p.errorf(line, "yaml", "want one YAML document per file")
		return nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	root = yamlDeref(root)
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "scenarios", "want a mapping with key scenarios, got %s", yamlKindName(root))
		return nil
	}
	var entries *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "defs":
		case "scenarios":
			entries = yamlDeref(v)
		default:
			p.errorf(k.Line, k.Value, "unknown key (want defs or scenarios)")
		}
	}
	if entries == nil {
		p.errorf(root.Line, "scenarios", "missing")
		return nil
	}
	if entries.Kind != yaml.SequenceNode {
		p.errorf(entries.Line, "scenarios", "want a list, got %s", yamlKindName(entries))
		return nil
	}
	if len(entries.Content) == 0 {
		p.errorf(entries.Line, "scenarios", "empty list")
	}
	var out []*Scenario
	for i, e := range entries.Content {
		if p.full() {
			break
		}
		e = yamlDeref(e)
		path := fmt.Sprintf("scenarios[%d]", i)
		if fam := yamlMapValue(e, "family"); fam != nil {
			if len(e.Content) != 2 {
				p.errorf(e.Line, path, "a family entry has the single key family")
				continue
			}
			out = append(out, p.family(fam, path+".family")...)
			continue
		}
		if sc := p.scenario(e, path, e.Line, ""); sc != nil {
			out = append(out, sc)
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	return out
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func yamlErrText(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.ReplaceAll(s, "\n", " ")
	return s
}

// yamlDeref follows aliases (yaml rejects cyclic anchors, but bound the walk).
func yamlDeref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

func yamlKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// yamlMapValue returns the value of key in mapping n (merges included), or nil.
func yamlMapValue(n *yaml.Node, key string) *yaml.Node {
	var seen map[*yaml.Node]bool
	return yamlMapValueSeen(n, key, &seen)
}

// yamlMapValueSeen looks key up in n and then in what n merges, visiting
// each mapping once: yaml lets an anchor merge into itself, which Decode
// reports but a walk must survive.
func yamlMapValueSeen(n *yaml.Node, key string, seen *map[*yaml.Node]bool) *yaml.Node {
	n = yamlDeref(n)
	if n.Kind != yaml.MappingNode || (*seen)[n] {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].ShortTag() != "!!merge" {
			return n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() != "!!merge" {
			continue
		}
		if *seen == nil {
			*seen = map[*yaml.Node]bool{}
		}
		(*seen)[n] = true
		for _, m := range yamlMergeSources(n.Content[i+1]) {
			if v := yamlMapValueSeen(m, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}

func yamlMergeSources(v *yaml.Node) []*yaml.Node {
	v = yamlDeref(v)
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// scenario checks, decodes and validates one scenario mapping. from, when
// set, names the family member it was expanded from.
func (p *scenarioParser) scenario(n *yaml.Node, path string, srcLine int, from string) *Scenario {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, path, "want a scenario mapping, got %s", yamlKindName(n))
		return nil
	}
	label := path
	if id := yamlDeref(yamlMapValue(n, "id")); id.Kind == yaml.ScalarNode && validScenarioID(id.Value) {
		label = id.Value
	}
	errs := len(p.errs)
	for _, req := range []string{"id", "category", "emails", "expect"} {
		if yamlMapValue(n, req) == nil {
			p.errorf(n.Line, label+"."+req, "missing required field%s", from)
		}
	}
	p.shape(n, reflect.TypeFor[Scenario](), label, from)
	if len(p.errs) > errs {
		return nil
	}
	var sc Scenario
	if err := n.Decode(&sc); err != nil {
		p.errorf(cmp.Or(yamlErrLine(err), n.Line), label, "%s%s", yamlErrText(err), from)
		return nil
	}
	sc.Source = fmt.Sprintf("%s:%d", p.file, srcLine)
	v := &scenarioValidator{p: p, loc: n, label: sc.ID, from: from}
	v.scenario(&sc)
	if len(p.errs) > errs {
		return nil
	}
	if first, ok := p.ids[sc.ID]; ok {
		p.errorf(srcLine, sc.ID+".id", "duplicate id (first at %s:%d)%s", p.file, first, from)
		return nil
	}
	p.ids[sc.ID] = srcLine
	return &sc
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// shape checks that node n can be decoded into type t: known keys only, the
// right kind of node, numbers where numbers are wanted. It reports the first
// problem under each field.
func (p *scenarioParser) shape(n *yaml.Node, t reflect.Type, path, from string) {
	if p.full() {
		return
	}
	p.budget++
	if p.budget > scenarioMaxNodes {
		p.errorf(n.Line, path, "document too large (more than %d nodes)", scenarioMaxNodes)
		return
	}
	if n.Kind == yaml.AliasNode {
		n = yamlDeref(n)
	}
	k := yamlShapeKey{n, t}
	if p.seen[k] {
		return
	}
	p.seen[k] = true
	isNull := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
	if t.Kind() == reflect.Pointer {
		if isNull {
			return
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		if n.Kind != yaml.ScalarNode {
			p.errorf(n.Line, path, "want a string, got %s%s", yamlKindName(n), from)
		}
		return
	}
	want := func(what string) {
		p.errorf(n.Line, path, "want %s, got %s%s", what, yamlKindName(n), from)
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			want("a mapping")
			return
		}
		fields := yamlFields(t)
		p.mapping(n, func(key, val *yaml.Node) {
			f, ok := fields[key.Value]
			if !ok {
				p.errorf(key.Line, path+"."+key.Value, "unknown field%s", from)
				return
			}
			p.shape(val, f.Type, path+"."+key.Value, from)
		}, path, from)
	case reflect.Map:
		if isNull {
			return
		}
		if n.Kind != yaml.MappingNode {
			want("a mapping")
			return
		}
		p.mapping(n, func(key, val *yaml.Node) {
			p.shape(val, t.Elem(), path+"."+key.Value, from)
		}, path, from)
	case reflect.Slice:
		if isNull {
			return
		}
		if t.Elem().Kind() == reflect.Uint8 {
			if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!binary" {
				want("!!binary data")
			}
			return
		}
		if n.Kind != yaml.SequenceNode {
			want("a list")
			return
		}
		for i, c := range n.Content {
			p.shape(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), from)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			want("a string")
		}
	case reflect.Float32, reflect.Float64:
		if tag := n.ShortTag(); n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") {
			want("a number")
		} else if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			want("a finite number")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			want("an integer")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			want("true or false")
		}
	case reflect.Interface:
		// Any value.
	default:
		p.errorf(n.Line, path, "cannot be set in YAML%s", from)
	}
}

// mapping calls fn for every key of n, merges included, and rejects
// non-scalar keys.
func (p *scenarioParser) mapping(n *yaml.Node, fn func(key, val *yaml.Node), path, from string) {
	p.mappingSeen(n, fn, path, from, map[*yaml.Node]bool{})
}

// mappingSeen walks n and what it merges, each mapping once.
func (p *scenarioParser) mappingSeen(n *yaml.Node, fn func(key, val *yaml.Node), path, from string, seen map[*yaml.Node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.ShortTag() == "!!merge" {
			for _, m := range yamlMergeSources(val) {
				if m = yamlDeref(m); m.Kind != yaml.MappingNode {
					p.errorf(m.Line, path+".<<", "want a mapping to merge, got %s%s", yamlKindName(m), from)
					continue
				}
				p.mappingSeen(m, fn, path, from, seen)
			}
			continue
		}
		if key.Kind != yaml.ScalarNode {
			p.errorf(key.Line, path, "want a string key, got %s%s", yamlKindName(key), from)
			continue
		}
		fn(key, val)
	}
}

var yamlFieldCache sync.Map // reflect.Type -> map[string]reflect.StructField

// yamlFields maps the YAML keys of struct t to its fields, as yaml.v3 names
// them (tag name, else the lowercased field name).
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	if m, ok := yamlFieldCache.Load(t); ok {
		return m.(map[string]reflect.StructField)
	}
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.ToLower(f.Name)
		if tag, ok := f.Tag.Lookup("yaml"); ok {
			tn, _, _ := strings.Cut(tag, ",")
			if tn == "-" {
				continue
			}
			if tn != "" {
				name = tn
			}
		}
		m[name] = f
	}
	yamlFieldCache.Store(t, m)
	return m
}

// Families.

var (
	familyVarRe      = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	familyRefRe      = regexp.MustCompile(`\$\{([^}]*)\}`)
	familyWholeRefRe = regexp.MustCompile(`^\$\{[^}]*\}$`)
)

func (p *scenarioParser) family(n *yaml.Node, path string) []*Scenario {
	n = yamlDeref(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, path, "want a mapping, got %s", yamlKindName(n))
		return nil
	}
	var name string
	var tmpl, members *yaml.Node
	p.mapping(n, func(key, val *yaml.Node) {
		val = yamlDeref(val)
		switch key.Value {
		case "name":
			if val.Kind != yaml.ScalarNode || !familyVarRe.MatchString(strings.ReplaceAll(val.Value, "-", "_")) {
				p.errorf(val.Line, path+".name", "want a name like typical-po, got %s", yamlKindName(val))
			}
			name = val.Value
		case "doc":
			if val.Kind != yaml.ScalarNode {
				p.errorf(val.Line, path+".doc", "want a string, got %s", yamlKindName(val))
			}
		case "template":
			tmpl = val
		case "members":
			members = val
		default:
			p.errorf(key.Line, path+"."+key.Value, "unknown field (want name, doc, template, members)")
		}
	}, path, "")
	if name == "" {
		p.errorf(n.Line, path+".name", "missing required field")
	}
	if tmpl == nil || tmpl.Kind != yaml.MappingNode {
		line := n.Line
		if tmpl != nil {
			line = tmpl.Line
		}
		p.errorf(line, path+".template", "want a scenario mapping")
	}
	if members == nil || members.Kind != yaml.SequenceNode || len(members.Content) == 0 {
		line := n.Line
		if members != nil {
			line = members.Line
		}
		p.errorf(line, path+".members", "want a non-empty list of variable mappings")
	}
	if len(p.errs) > 0 {
		return nil
	}
	label := path
	if name != "" {
		label = "family " + name
	}
	var out []*Scenario
	for i, m := range members.Content {
		if p.full() {
			break
		}
		m = yamlDeref(m)
		mpath := fmt.Sprintf("%s.members[%d]", path, i)
		vars, ok := p.memberVars(m, mpath)
		if !ok {
			continue
		}
		from := fmt.Sprintf(" (%s member %s at %s:%d)", label, vars["id"], p.file, m.Line)
		used := map[string]bool{}
		inst, ok := p.instantiate(tmpl, vars, used, mpath, from)
		if !ok {
			continue
		}
		for _, k := range sortedVarNames(vars) {
			if !used[k] {
				p.errorf(m.Line, mpath+"."+k, "variable not used by the template")
			}
		}
		if sc := p.scenario(inst, mpath, m.Line, from); sc != nil {
			out = append(out, sc)
		}
	}
	return out
}

func sortedVarNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *scenarioParser) memberVars(m *yaml.Node, path string) (map[string]string, bool) {
	if m.Kind != yaml.MappingNode {
		p.errorf(m.Line, path, "want a mapping of variables, got %s", yamlKindName(m))
		return nil, false
	}
	vars := map[string]string{}
	ok := true
	p.mapping(m, func(key, val *yaml.Node) {
		val = yamlDeref(val)
		switch {
		case !familyVarRe.MatchString(key.Value):
			p.errorf(key.Line, path+"."+key.Value, "variable names are lower_snake_case")
			ok = false
		case val.Kind != yaml.ScalarNode:
			p.errorf(val.Line, path+"."+key.Value, "want a scalar, got %s", yamlKindName(val))
			ok = false
		default:
			vars[key.Value] = val.Value
		}
	}, path, "")
	if vars["id"] == "" && ok {
		p.errorf(m.Line, path+".id", "missing required variable")
		ok = false
	}
	return vars, ok
}

// instantiate returns a deep copy of template with ${name} replaced in every
// scalar value. Aliases are expanded into copies.
func (p *scenarioParser) instantiate(tmpl *yaml.Node, vars map[string]string, used map[string]bool, path, from string) (*yaml.Node, bool) {
	ok := true
	var walk func(n *yaml.Node, depth int) *yaml.Node
	walk = func(n *yaml.Node, depth int) *yaml.Node {
		n = yamlDeref(n)
		p.budget++
		if p.budget > scenarioMaxNodes || depth > 200 {
			if ok {
				p.errorf(n.Line, path, "template too large%s", from)
			}
			ok = false
			return n
		}
		c := *n
		c.Anchor = ""
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
			c.Value = p.substitute(n, vars, used, path, from, &ok)
			whole := familyWholeRefRe.MatchString(n.Value)
			if whole && n.Style&yaml.TaggedStyle == 0 {
				// "${qty}" stands for the variable's value, whose type is
				// resolved afresh (quotes are only there for flow syntax).
				c.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
			}
			if c.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
				c.Tag = "" // resolve the substituted text afresh: 40 is a number
			}
		}
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				if n.Kind == yaml.MappingNode && i%2 == 0 {
					c.Content[i] = ch // keys are not templated
					continue
				}
				c.Content[i] = walk(ch, depth+1)
			}
		}
		return &c
	}
	out := walk(tmpl, 0)
	return out, ok
}

func (p *scenarioParser) substitute(n *yaml.Node, vars map[string]string, used map[string]bool, path, from string, ok *bool) string {
	s := familyRefRe.ReplaceAllStringFunc(n.Value, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, found := vars[name]
		if !found {
			p.errorf(n.Line, path, "template refers to ${%s}, which the member does not set%s", name, from)
			*ok = false
			return ref
		}
		used[name] = true
		return v
	})
	if *ok && strings.Contains(s, "${") {
		p.errorf(n.Line, path, "unterminated ${ in template%s", from)
		*ok = false
	}
	return s
}

// Validation.

// scenarioValidator checks one decoded scenario against the rules of a scenario
// file, naming lines through the scenario's YAML node.
type scenarioValidator struct {
	p     *scenarioParser
	loc   *yaml.Node
	label string
	from  string
	sc    *Scenario
}

// line returns the line of the node at path (map keys and list indexes),
// or of the deepest ancestor present.
func (v *scenarioValidator) line(path ...any) int {
	n := v.loc
	for _, step := range path {
		var next *yaml.Node
		switch s := step.(type) {
		case string:
			next = yamlMapValue(n, s)
		case int:
			if d := yamlDeref(n); d.Kind == yaml.SequenceNode && s < len(d.Content) {
				next = d.Content[s]
			}
		}
		if next == nil {
			break
		}
		n = yamlDeref(next)
	}
	return n.Line
}

func (v *scenarioValidator) errorf(path []any, format string, args ...any) {
	var b strings.Builder
	b.WriteString(v.label)
	for _, s := range path {
		switch s := s.(type) {
		case string:
			b.WriteString("." + s)
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	v.p.errorf(v.line(path...), b.String(), format+v.from, args...)
}

func scPath(path ...any) []any { return path }

var (
	scenarioIDRe   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	scenarioTagRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(:[A-Za-z0-9._-]+)?$`)
	currencyCodeRe = regexp.MustCompile(`^[A-Z]{3}$`)
)

func validScenarioID(s string) bool { return scenarioIDRe.MatchString(s) }

func parseScenarioDate(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// scCents converts an amount to whole scCents.
func scCents(x float64) int64 { return int64(math.Round(x * 100)) }

func scMoney(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func (v *scenarioValidator) scenario(sc *Scenario) {
	v.sc = sc
	if !validScenarioID(sc.ID) {
		v.errorf(scPath("id"), "want an id like S01, got %q", sc.ID)
	}
	if !slices.Contains(AllCategories, sc.Category) {
		v.errorf(scPath("category"), "unknown category %q (want one of %s)", sc.Category, scenarioCategoryList())
	}
	v.tags(sc)
	if d, ok := parseScenarioDate(sc.Day); !ok {
		v.errorf(scPath("day"), "want a date YYYY-MM-DD, got %q", sc.Day)
	} else if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		v.errorf(scPath("day"), "%s is a %s, not a business day", sc.Day, wd)
	}
	suppliers := v.initial(&sc.Initial)
	emails := map[string]*Email{}
	if len(sc.Emails) == 0 {
		v.errorf(scPath("emails"), "want at least one email")
	}
	for i := range sc.Emails {
		e := &sc.Emails[i]
		switch {
		case !validScenarioID(e.ID):
			v.errorf(scPath("emails", i, "id"), "want an email id like E1, got %q", e.ID)
		case emails[e.ID] != nil:
			v.errorf(scPath("emails", i, "id"), "duplicate email id %q", e.ID)
		default:
			emails[e.ID] = e
		}
		if e.From == "" {
			v.errorf(scPath("emails", i, "from"), "missing sender")
		}
		if e.Attachment != nil {
			v.document(e.Attachment, scPath("emails", i, "attachment"))
		}
	}
	v.expect(&sc.Expect, emails, suppliers)
	for i, g := range sc.Golden {
		if !HasAgent(g.Agent) {
			v.errorf(scPath("golden", i, "agent"), "unknown agent %q", g.Agent)
		}
		if emails[g.Item] == nil {
			v.errorf(scPath("golden", i, "item"), "unknown email %q", g.Item)
		}
	}
}

func scenarioCategoryList() string {
	s := make([]string, len(AllCategories))
	for i, c := range AllCategories {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func (v *scenarioValidator) tags(sc *Scenario) {
	seen := map[string]bool{}
	var hasCat, hasCur bool
	for i, t := range sc.Tags {
		if !scenarioTagRe.MatchString(t) {
			v.errorf(scPath("tags", i), "want a tag like po-backed or currency:EUR, got %q", t)
			continue
		}
		if seen[t] {
			v.errorf(scPath("tags", i), "duplicate tag %q", t)
		}
		seen[t] = true
		key, val, ok := strings.Cut(t, ":")
		switch {
		case ok && key == "category":
			hasCat = true
			if val != string(sc.Category) {
				v.errorf(scPath("tags", i), "tag %q disagrees with category %q", t, sc.Category)
			}
		case ok && key == "currency":
			hasCur = true
			if !currencyCodeRe.MatchString(val) {
				v.errorf(scPath("tags", i), "want currency:XXX (ISO code), got %q", t)
			}
		}
	}
	if !hasCat {
		v.errorf(scPath("tags"), "missing tag category:%s", sc.Category)
	}
	if !hasCur {
		v.errorf(scPath("tags"), "missing a currency:XXX tag")
	}
	for i, e := range sc.Emails {
		if e.Attachment != nil && currencyCodeRe.MatchString(e.Attachment.Currency) && !seen["currency:"+e.Attachment.Currency] {
			v.errorf(scPath("emails", i, "attachment", "currency"), "currency %s is not tagged (add tag currency:%s)", e.Attachment.Currency, e.Attachment.Currency)
		}
	}
}

func (v *scenarioValidator) initial(st *sandbox.State) map[string]*sandbox.Supplier {
	suppliers := map[string]*sandbox.Supplier{}
	for i := range st.Suppliers {
		s := &st.Suppliers[i]
		switch {
		case s.ID == "":
			v.errorf(scPath("initial", "suppliers", i, "id"), "missing supplier id")
		case suppliers[s.ID] != nil:
			v.errorf(scPath("initial", "suppliers", i, "id"), "duplicate supplier id %q", s.ID)
		default:
			suppliers[s.ID] = s
		}
		if s.Email == "" {
			v.errorf(scPath("initial", "suppliers", i, "email"), "missing supplier email")
		}
		if s.BankAccount == "" {
			v.errorf(scPath("initial", "suppliers", i, "bank_account"), "missing bank account")
		}
		if s.Currency != "" && !currencyCodeRe.MatchString(s.Currency) {
			v.errorf(scPath("initial", "suppliers", i, "currency"), "want an ISO currency code, got %q", s.Currency)
		}
	}
	pos := map[string]*sandbox.PurchaseOrder{}
	for i := range st.PurchaseOrders {
		po := &st.PurchaseOrders[i]
		switch {
		case po.Number == "":
			v.errorf(scPath("initial", "purchase_orders", i, "number"), "missing order number")
		case pos[po.Number] != nil:
			v.errorf(scPath("initial", "purchase_orders", i, "number"), "duplicate order number %q", po.Number)
		default:
			pos[po.Number] = po
		}
		if suppliers[po.SupplierID] == nil {
			v.errorf(scPath("initial", "purchase_orders", i, "supplier_id"), "unknown supplier %q", po.SupplierID)
		}
		if !currencyCodeRe.MatchString(po.Currency) {
			v.errorf(scPath("initial", "purchase_orders", i, "currency"), "want an ISO currency code, got %q", po.Currency)
		}
		if len(po.Lines) == 0 {
			v.errorf(scPath("initial", "purchase_orders", i, "lines"), "want at least one line")
		}
		skus := map[string]bool{}
		for j, l := range po.Lines {
			if l.SKU == "" || skus[l.SKU] {
				v.errorf(scPath("initial", "purchase_orders", i, "lines", j, "sku"), "missing or repeated sku %q", l.SKU)
			}
			skus[l.SKU] = true
			if l.Qty <= 0 || l.UnitPrice <= 0 {
				v.errorf(scPath("initial", "purchase_orders", i, "lines", j), "want a positive qty and unit_price")
			}
		}
	}
	received := map[string]bool{}
	for i, gr := range st.GoodsReceipts {
		if gr.ID == "" || received[gr.ID] {
			v.errorf(scPath("initial", "goods_receipts", i, "id"), "missing or repeated receipt id %q", gr.ID)
		}
		received[gr.ID] = true
		po := pos[gr.PONumber]
		if po == nil {
			v.errorf(scPath("initial", "goods_receipts", i, "po_number"), "unknown purchase order %q", gr.PONumber)
			continue
		}
		if !slices.ContainsFunc(po.Lines, func(l sandbox.POLine) bool { return l.SKU == gr.SKU }) {
			v.errorf(scPath("initial", "goods_receipts", i, "sku"), "sku %q is not on order %s", gr.SKU, gr.PONumber)
		}
		if gr.Qty <= 0 {
			v.errorf(scPath("initial", "goods_receipts", i, "qty"), "want a positive quantity")
		}
	}
	invoices := map[string]bool{}
	for i, inv := range st.Invoices {
		if inv.ID == "" || invoices[inv.ID] {
			v.errorf(scPath("initial", "invoices", i, "id"), "missing or repeated invoice id %q", inv.ID)
		}
		invoices[inv.ID] = true
		if suppliers[inv.SupplierID] == nil {
			v.errorf(scPath("initial", "invoices", i, "supplier_id"), "unknown supplier %q", inv.SupplierID)
		}
		if inv.Number == "" {
			v.errorf(scPath("initial", "invoices", i, "number"), "missing invoice number")
		}
		if scCents(inv.Net)+scCents(inv.Tax) != scCents(inv.Gross) {
			v.errorf(scPath("initial", "invoices", i, "gross"), "net %s + tax %s != gross %s", scMoney(scCents(inv.Net)), scMoney(scCents(inv.Tax)), scMoney(scCents(inv.Gross)))
		}
		v.dates(inv.InvoiceDate, inv.DueDate, scPath("initial", "invoices", i))
	}
	for i, pay := range st.Payments {
		if !invoices[pay.InvoiceID] {
			v.errorf(scPath("initial", "payments", i, "invoice_id"), "unknown invoice %q", pay.InvoiceID)
		}
		if suppliers[pay.SupplierID] == nil {
			v.errorf(scPath("initial", "payments", i, "supplier_id"), "unknown supplier %q", pay.SupplierID)
		}
	}
	return suppliers
}

// dates checks an invoice date (required) and a due date (optional, not
// before the invoice date).
func (v *scenarioValidator) dates(invoiceDate, dueDate string, path []any) {
	inv, ok := parseScenarioDate(invoiceDate)
	if !ok {
		v.errorf(append(path, "invoice_date"), "want a date YYYY-MM-DD, got %q", invoiceDate)
	}
	if dueDate == "" {
		return
	}
	due, dok := parseScenarioDate(dueDate)
	switch {
	case !dok:
		v.errorf(append(path, "due_date"), "want a date YYYY-MM-DD, got %q", dueDate)
	case ok && due.Before(inv):
		v.errorf(append(path, "due_date"), "due date %s is before invoice date %s", dueDate, invoiceDate)
	}
}

func (v *scenarioValidator) document(d *Document, path []any) {
	switch d.Type {
	case DocInvoice, DocCreditNote, DocStatement:
	default:
		v.errorf(append(path, "type"), "want invoice, credit_note or statement, got %q", d.Type)
	}
	if !currencyCodeRe.MatchString(d.Currency) {
		v.errorf(append(path, "currency"), "want an ISO currency code, got %q", d.Currency)
	}
	if d.Type != DocStatement && d.InvoiceNumber == "" {
		v.errorf(append(path, "invoice_number"), "missing document number")
	}
	v.dates(d.InvoiceDate, d.DueDate, path)
	var sum int64
	for j, l := range d.Lines {
		if got, want := scCents(l.Amount), scCents(l.Qty*l.UnitPrice); got != want {
			v.errorf(append(path, "lines", j, "amount"), "qty %g x unit_price %g = %s, not %s", l.Qty, l.UnitPrice, scMoney(want), scMoney(got))
		}
		sum += scCents(l.Amount)
	}
	if len(d.Lines) > 0 && sum != scCents(d.Net) {
		v.errorf(append(path, "net"), "lines sum to %s, not net %s", scMoney(sum), scMoney(scCents(d.Net)))
	}
	if scCents(d.Net)+scCents(d.Tax) != scCents(d.Gross) {
		v.errorf(append(path, "gross"), "net %s + tax %s != gross %s", scMoney(scCents(d.Net)), scMoney(scCents(d.Tax)), scMoney(scCents(d.Gross)))
	}
}

// dueDate is the date a document is payable: its due date, else 30 days
// after its invoice date.
func (d *Document) dueDate() string {
	if d.DueDate != "" {
		return d.DueDate
	}
	if t, ok := parseScenarioDate(d.InvoiceDate); ok {
		return t.AddDate(0, 0, 30).Format(time.DateOnly)
	}
	return ""
}

func (v *scenarioValidator) expect(x *sandbox.Expected, emails map[string]*Email, suppliers map[string]*sandbox.Supplier) {
	covered := map[string]bool{}
	outcome := map[string]string{}
	reason := map[string]string{}
	for i := range x.Items {
		it := &x.Items[i]
		path := scPath("expect", "items", i)
		e := emails[it.Item]
		switch {
		case e == nil:
			v.errorf(append(path, "item"), "unknown email %q", it.Item)
			continue
		case covered[it.Item]:
			v.errorf(append(path, "item"), "email %q already has an expected outcome", it.Item)
			continue
		}
		covered[it.Item] = true
		outcome[it.Item], reason[it.Item] = it.Outcome, it.Reason
		v.item(it, e, suppliers, path)
		for j := range it.Alternatives {
			alt := &it.Alternatives[j]
			apath := append(slices.Clone(path), "alternatives", j)
			if alt.Item != "" && alt.Item != it.Item {
				v.errorf(append(apath, "item"), "an alternative is for the same email %q, got %q", it.Item, alt.Item)
			}
			if len(alt.Alternatives) > 0 {
				v.errorf(append(apath, "alternatives"), "alternatives do not nest")
			}
			v.item(alt, e, suppliers, apath)
		}
	}
	for i, e := range v.sc.Emails {
		if e.ID != "" && !covered[e.ID] {
			v.errorf(scPath("emails", i, "id"), "email %q has no expected outcome in expect.items", e.ID)
		}
	}
	reported := map[string]string{}
	for i, r := range x.Report {
		path := scPath("expect", "report", i)
		if emails[r.Item] == nil {
			v.errorf(append(path, "item"), "unknown email %q", r.Item)
			continue
		}
		if !slices.Contains(scenarioReportKinds, r.Kind) {
			v.errorf(append(path, "kind"), "want one of %s, got %q", strings.Join(scenarioReportKinds, ", "), r.Kind)
			continue
		}
		if r.Reason == "" {
			v.errorf(append(path, "reason"), "missing reason")
		}
		key := r.Item + "/" + r.Kind
		if _, dup := reported[key]; dup {
			v.errorf(path, "second %s entry for %s", r.Kind, r.Item)
		}
		reported[key] = r.Reason
		want := map[string]string{"escalation": sandbox.OutcomeEscalated, "rejection": sandbox.OutcomeRejected}[r.Kind]
		if want != "" && outcome[r.Item] != want {
			v.errorf(append(path, "kind"), "report has a %s for %s, whose expected outcome is %q", r.Kind, r.Item, outcome[r.Item])
		} else if want != "" && reason[r.Item] != r.Reason {
			v.errorf(append(path, "reason"), "report reason %q differs from the item's %q", r.Reason, reason[r.Item])
		}
	}
	for i, it := range x.Items {
		kind := map[string]string{sandbox.OutcomeEscalated: "escalation", sandbox.OutcomeRejected: "rejection"}[it.Outcome]
		if _, ok := reported[it.Item+"/"+kind]; kind != "" && !ok {
			v.errorf(scPath("expect", "items", i, "outcome"), "%s item %s has no %s entry in expect.report", it.Outcome, it.Item, kind)
		}
	}
}

func (v *scenarioValidator) item(it *sandbox.ExpectedItem, e *Email, suppliers map[string]*sandbox.Supplier, path []any) {
	if it.Supplier != "" && suppliers[it.Supplier] == nil {
		v.errorf(append(path, "supplier"), "unknown supplier %q", it.Supplier)
	}
	doc := e.Attachment
	if it.Invoice != "" && (doc == nil || doc.InvoiceNumber != it.Invoice) {
		v.errorf(append(path, "invoice"), "email %s carries no document numbered %q", e.ID, it.Invoice)
	}
	if it.Outcome != sandbox.OutcomePaid {
		reasons, ok := scenarioReasons[it.Outcome]
		switch {
		case !ok:
			v.errorf(append(path, "outcome"), "want paid, escalated, rejected or closed, got %q", it.Outcome)
		case !slices.Contains(reasons, it.Reason):
			v.errorf(append(path, "reason"), "want a %s reason (%s), got %q", it.Outcome, strings.Join(reasons, ", "), it.Reason)
		}
		if it.Amount != 0 || it.DueDate != "" || it.BankAccount != "" {
			v.errorf(append(path, "amount"), "only a paid item has amount, due_date and bank_account")
		}
		return
	}
	if it.Reason != "" {
		v.errorf(append(path, "reason"), "a paid item has no reason")
	}
	s := suppliers[it.Supplier]
	if s == nil {
		v.errorf(append(path, "supplier"), "a paid item names the supplier paid")
	} else if it.BankAccount != s.BankAccount {
		v.errorf(append(path, "bank_account"), "want the supplier's account on file %q, got %q", s.BankAccount, it.BankAccount)
	}
	if doc == nil || doc.Type != DocInvoice {
		v.errorf(append(path, "outcome"), "email %s carries no invoice to pay", e.ID)
		return
	}
	if it.Invoice == "" {
		v.errorf(append(path, "invoice"), "a paid item names the invoice number")
	}
	if scCents(it.Amount) != scCents(doc.Gross) {
		v.errorf(append(path, "amount"), "want the invoice gross %s, got %s", scMoney(scCents(doc.Gross)), scMoney(scCents(it.Amount)))
	}
	if it.Currency != doc.Currency {
		v.errorf(append(path, "currency"), "want the invoice currency %q, got %q", doc.Currency, it.Currency)
	}
	if due := doc.dueDate(); it.DueDate != due {
		v.errorf(append(path, "due_date"), "want the invoice's due date %q, got %q", due, it.DueDate)
	}
}

// Clone returns a deep copy of the scenario.
func (sc *Scenario) Clone() *Scenario {
	c := *sc
	c.Tags = slices.Clone(sc.Tags)
	c.Initial = cloneScenarioState(sc.Initial)
	c.Emails = slices.Clone(sc.Emails)
	for i := range c.Emails {
		if a := c.Emails[i].Attachment; a != nil {
			d := *a
			d.Lines = slices.Clone(a.Lines)
			c.Emails[i].Attachment = &d
		}
	}
	c.Expect.Items = cloneExpectedItems(sc.Expect.Items)
	c.Expect.Report = slices.Clone(sc.Expect.Report)
	c.Golden = slices.Clone(sc.Golden)
	for i := range c.Golden {
		g := &c.Golden[i]
		g.Input.Messages = cloneByteSlices(g.Input.Messages)
		g.Calls = slices.Clone(g.Calls)
		for j := range g.Calls {
			g.Calls[j].Args = cloneAnyValue(map[string]any(g.Calls[j].Args)).(map[string]any)
		}
		if g.Result != nil {
			g.Result = cloneAnyValue(map[string]any(g.Result)).(map[string]any)
		}
		if g.Emitted != nil {
			m := make(map[string][]byte, len(g.Emitted))
			for k, b := range g.Emitted {
				m[k] = slices.Clone(b)
			}
			g.Emitted = m
		}
	}
	return &c
}

func cloneExpectedItems(items []sandbox.ExpectedItem) []sandbox.ExpectedItem {
	out := slices.Clone(items)
	for i := range out {
		out[i].Alternatives = cloneExpectedItems(out[i].Alternatives)
	}
	return out
}

func cloneByteSlices(l [][]byte) [][]byte {
	if l == nil {
		return nil
	}
	out := make([][]byte, len(l))
	for i, b := range l {
		out[i] = slices.Clone(b)
	}
	return out
}

func cloneScenarioState(s sandbox.State) sandbox.State {
	c := s
	c.Suppliers = slices.Clone(s.Suppliers)
	c.PurchaseOrders = slices.Clone(s.PurchaseOrders)
	for i := range c.PurchaseOrders {
		c.PurchaseOrders[i].Lines = slices.Clone(s.PurchaseOrders[i].Lines)
	}
	c.GoodsReceipts = slices.Clone(s.GoodsReceipts)
	c.Invoices = slices.Clone(s.Invoices)
	c.Matches = slices.Clone(s.Matches)
	c.Ledger = slices.Clone(s.Ledger)
	c.Approvals = slices.Clone(s.Approvals)
	c.Payments = slices.Clone(s.Payments)
	c.Escalations = slices.Clone(s.Escalations)
	c.Rejections = slices.Clone(s.Rejections)
	c.Closures = slices.Clone(s.Closures)
	c.Reports = slices.Clone(s.Reports)
	for i := range c.Reports {
		c.Reports[i].Entries = slices.Clone(s.Reports[i].Entries)
	}
	c.Log = slices.Clone(s.Log)
	return c
}

func cloneAnyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneAnyValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = cloneAnyValue(e)
		}
		return l
	case []byte:
		return slices.Clone(x)
	}
	return v
}
