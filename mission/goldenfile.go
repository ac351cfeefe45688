package mission

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// GoldenFileFormat is the version of the golden file format written by
// [NewGoldenFile]; [ParseGoldenFile] accepts only it.
const GoldenFileFormat = 1

// GoldenFile is the stored, reviewable form of one scenario's per-agent
// golden expectations (a mission's scenarios/golden/<scenario-id>.json). It
// is pretty-printed JSON with sorted object keys, one entry per agent and
// item in flow order (the mission's agents in order, then item):
//
//	{
//	  "format": 1,
//	  "scenario": "S01",
//	  "scenario_sha256": "…",   // fingerprint of the run's inputs, see ScenarioFingerprint
//	  "recorded": "…",          // how to re-record (the mission's note)
//	  "goldens": [
//	    {
//	      "agent": "intake",
//	      "item": "E1",
//	      "input": {"item": "E1", "messages": [ {wire message}, … ]},
//	      "calls": [{"name": "get_record", "args": {…}, "attempts": 1, "error": "NF-404"}, …],
//	      "result": {…},
//	      "emitted": {"intake->action": {wire message}}
//	    }, …
//	  ]
//	}
//
// A wire message is stored as the JSON object itself when its bytes are
// compact JSON (what the emitters marshal), so it reads as JSON and
// compacting it gives back exactly the same bytes; any other bytes are
// stored as a JSON string holding them. Either way [GoldenFile.Goldens]
// returns the recorded bytes unchanged.
type GoldenFile struct {
	Format         int           `json:"format"`
	Scenario       string        `json:"scenario"`
	ScenarioSHA256 string        `json:"scenario_sha256"`
	Recorded       string        `json:"recorded"`
	Entries        []GoldenEntry `json:"goldens"`
}

// GoldenEntry is one [Golden] as stored in a [GoldenFile].
type GoldenEntry struct {
	Agent   Agent                      `json:"agent"`
	Item    string                     `json:"item"`
	Input   GoldenInput                `json:"input"`
	Calls   []ToolCall                 `json:"calls"`
	Result  Result                     `json:"result"`
	Emitted map[string]json.RawMessage `json:"emitted,omitempty"`
}

// GoldenInput is a [CoreInput] as stored in a [GoldenFile].
type GoldenInput struct {
	Item     string            `json:"item"`
	Messages []json.RawMessage `json:"messages,omitempty"`
}

// NewGoldenFile returns the stored form of goldens recorded for sc, sorted
// by agent (spec's flow order), then item; recorded tells a reader how to
// record them again.
func NewGoldenFile(spec *Spec, sc *Scenario, goldens []Golden, recorded string) (*GoldenFile, error) {
	f := &GoldenFile{
		Format:         GoldenFileFormat,
		Scenario:       sc.ID,
		ScenarioSHA256: ScenarioFingerprint(sc),
		Recorded:       recorded,
		Entries:        make([]GoldenEntry, 0, len(goldens)),
	}
	for i := range goldens {
		g := &goldens[i]
		e := GoldenEntry{Agent: g.Agent, Item: g.Item, Input: GoldenInput{Item: g.Input.Item}, Calls: g.Calls, Result: g.Result}
		if len(g.Input.Messages) > 0 { // no messages are stored as none (nil)
			e.Input.Messages = make([]json.RawMessage, len(g.Input.Messages))
		}
		for j, raw := range g.Input.Messages {
			w, err := storeWire(raw)
			if err != nil {
				return nil, fmt.Errorf("golden file %s: %s %s: input message %d: %w", sc.ID, g.Agent, g.Item, j, err)
			}
			e.Input.Messages[j] = w
		}
		if len(g.Emitted) > 0 {
			e.Emitted = make(map[string]json.RawMessage, len(g.Emitted))
		}
		for edge, raw := range g.Emitted {
			w, err := storeWire(raw)
			if err != nil {
				return nil, fmt.Errorf("golden file %s: %s %s: emitted on %s: %w", sc.ID, g.Agent, g.Item, edge, err)
			}
			e.Emitted[edge] = w
		}
		f.Entries = append(f.Entries, e)
	}
	slices.SortStableFunc(f.Entries, func(a, b GoldenEntry) int {
		return cmp.Or(cmp.Compare(spec.AgentIndex(a.Agent), spec.AgentIndex(b.Agent)), cmp.Compare(a.Item, b.Item))
	})
	return f, nil
}

// Marshal returns the file's bytes: indented JSON, object keys sorted,
// HTML characters left as they are, ending in a newline. Equal files give
// equal bytes.
func (f *GoldenFile) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("golden file %s: %w", f.Scenario, err)
	}
	return b.Bytes(), nil
}

// Goldens returns the file's goldens in file order, wire messages as the
// bytes that were recorded.
func (f *GoldenFile) Goldens() ([]Golden, error) {
	out := make([]Golden, len(f.Entries))
	for i := range f.Entries {
		e := &f.Entries[i]
		g := Golden{Agent: e.Agent, Item: e.Item, Input: CoreInput{Item: e.Input.Item}, Calls: e.Calls, Result: e.Result}
		if e.Input.Messages != nil {
			g.Input.Messages = make([][]byte, len(e.Input.Messages))
		}
		for j, w := range e.Input.Messages {
			raw, err := loadWire(w)
			if err != nil {
				return nil, fmt.Errorf("goldens[%d].input.messages[%d]: %w", i, j, err)
			}
			g.Input.Messages[j] = raw
		}
		if len(e.Emitted) > 0 {
			g.Emitted = make(map[string][]byte, len(e.Emitted))
		}
		for edge, w := range e.Emitted {
			raw, err := loadWire(w)
			if err != nil {
				return nil, fmt.Errorf("goldens[%d].emitted[%q]: %w", i, edge, err)
			}
			g.Emitted[edge] = raw
		}
		out[i] = g
	}
	return out, nil
}

// ParseGoldenFile decodes a golden file of spec's mission strictly: unknown
// keys (outside tool arguments and results, which are free-form), a format
// other than [GoldenFileFormat], unknown agents, edges the mission does not
// have, missing items, tool calls without a name, unreadable wire messages
// and trailing data are errors naming name and, for syntax and type
// errors, the line.
func ParseGoldenFile(name string, data []byte, spec *Spec) (*GoldenFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f GoldenFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse golden file %s:%d: %w", name, goldenErrLine(data, err, dec.InputOffset()), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parse golden file %s:%d: data after the top-level object", name, goldenLineAt(data, dec.InputOffset()))
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("parse golden file %s: %s: %s", name, field, fmt.Sprintf(format, args...)))
	}
	if f.Format != GoldenFileFormat {
		bad("format", "want %d, got %d", GoldenFileFormat, f.Format)
	}
	if f.Scenario == "" {
		bad("scenario", "missing")
	}
	for i, e := range f.Entries {
		if !spec.HasAgent(e.Agent) {
			bad(fmt.Sprintf("goldens[%d].agent", i), "unknown agent %q", e.Agent)
		}
		if e.Item == "" {
			bad(fmt.Sprintf("goldens[%d].item", i), "missing")
		}
		for edge := range e.Emitted {
			if !slices.ContainsFunc(spec.EdgeList(), func(x Edge) bool { return x.String() == edge }) {
				bad(fmt.Sprintf("goldens[%d].emitted", i), "unknown edge %q", edge)
			}
		}
		for j, c := range e.Calls {
			if c.Name == "" {
				bad(fmt.Sprintf("goldens[%d].calls[%d].name", i, j), "missing")
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if _, err := f.Goldens(); err != nil {
		return nil, fmt.Errorf("parse golden file %s: %w", name, err)
	}
	return &f, nil
}

// storeWire returns the stored form of wire bytes: the JSON value itself
// when raw is a compact JSON object or array in valid UTF-8 (compacting the
// indented form gives back raw), else a JSON string holding raw.
func storeWire(raw []byte) (json.RawMessage, error) {
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') && utf8.Valid(raw) && json.Valid(raw) {
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), raw) {
			return json.RawMessage(slices.Clone(raw)), nil
		}
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("wire bytes are not valid UTF-8")
	}
	s, err := json.Marshal(string(raw))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadWire inverts storeWire.
func loadWire(w json.RawMessage) ([]byte, error) {
	w = bytes.TrimLeft(w, " \t\r\n")
	if len(w) > 0 && w[0] == '"' {
		var s string
		if err := json.Unmarshal(w, &s); err != nil {
			return nil, fmt.Errorf("wire message: %w", err)
		}
		return []byte(s), nil
	}
	if len(w) == 0 || (w[0] != '{' && w[0] != '[') {
		return nil, errors.New("wire message: want a JSON object, array or string")
	}
	var c bytes.Buffer
	if err := json.Compact(&c, w); err != nil {
		return nil, fmt.Errorf("wire message: %w", err)
	}
	return c.Bytes(), nil
}

// goldenErrLine returns the line of a decoding error: the error's offset when
// it has one, else the decoder's.
func goldenErrLine(data []byte, err error, fallback int64) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return goldenLineAt(data, se.Offset)
	case errors.As(err, &te):
		return goldenLineAt(data, te.Offset)
	}
	return goldenLineAt(data, fallback)
}

func goldenLineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// AttachGoldens parses the golden files dir/*.json of fsys (a mission's
// reviewed goldens, embedded beside its scenarios) and sets the goldens of
// every scenario of scs that has one recorded for its current version
// (same [ScenarioFingerprint]). A file for a scenario not in scs, or
// recorded for another version of it, is not used: that scenario keeps no
// goldens, so designs record them on the fly, and the mission's golden test
// fails until the file is re-recorded and reviewed. A file that does not
// parse, or whose scenario differs from its name, is an error. Each file's
// name and bytes are written to h, in name order, for the suite's hash.
func AttachGoldens(fsys fs.FS, dir string, spec *Spec, scs []*Scenario, h io.Writer) error {
	names, err := fs.Glob(fsys, dir+"/*.json")
	if err != nil {
		return fmt.Errorf("load golden files: %w", err)
	}
	slices.Sort(names)
	byID := make(map[string]*Scenario, len(scs))
	for _, sc := range scs {
		byID[sc.ID] = sc
	}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("load golden files: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		f, err := ParseGoldenFile(name, data, spec)
		if err != nil {
			return fmt.Errorf("load golden files: %w", err)
		}
		if id := strings.TrimSuffix(path.Base(name), ".json"); f.Scenario != id {
			return fmt.Errorf("load golden files: %s: scenario: file is named for %s, holds %q", name, id, f.Scenario)
		}
		sc := byID[f.Scenario]
		if sc == nil || f.ScenarioSHA256 != ScenarioFingerprint(sc) {
			continue
		}
		if sc.Golden, err = f.Goldens(); err != nil {
			return fmt.Errorf("load golden files: %s: %w", name, err)
		}
	}
	return nil
}
