package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Kind is what a file given to `baton score` records.
type Kind string

// The kinds of recorded observations.
const (
	KindRuns         Kind = "runs"         // agent runs: tool calls and answers ([Run])
	KindSkills       Kind = "skills"       // skill selection, loading and execution ([SkillRequest])
	KindVoice        Kind = "voice"        // event timelines with timestamp bounds ([VoiceFile])
	KindKnowledge    Kind = "knowledge"    // knowledge-to-action attempts per interface ([KnowledgeAttempt])
	KindCoordination Kind = "coordination" // multi-agent coordination records ([coordination.Record])
)

// AllKinds lists every kind, the default first.
var AllKinds = []Kind{KindRuns, KindSkills, KindVoice, KindKnowledge, KindCoordination}

// String returns the kind's name.
func (k Kind) String() string { return string(k) }

// ParseKind returns the kind named s.
func ParseKind(s string) (Kind, error) {
	for _, k := range AllKinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("kind %q: want one of %s", s, joinNames(AllKinds))
}

// observationReport is the report of one kind of observation.
type observationReport interface {
	WriteText(w io.Writer) error
}

var (
	_ observationReport = (*SkillsReport)(nil)
	_ observationReport = (*VoiceReport)(nil)
	_ observationReport = (*KnowledgeReport)(nil)
	_ observationReport = (*CoordinationReport)(nil)
)

// mainObservations scores the file at path as opt.Kind and prints the
// report as a table or, with opt.JSON, as JSON.
func mainObservations(path string, opt Options, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", opt.Kind, err)
	}
	defer f.Close()
	rep, err := scoreKind(f, path, opt.Kind)
	if err != nil {
		return fmt.Errorf("read %s: %w", opt.Kind, err)
	}
	var buf bytes.Buffer
	if opt.JSON {
		err = writeJSON(&buf, rep)
	} else {
		err = rep.WriteText(&buf)
	}
	if err == nil {
		_, err = out.Write(buf.Bytes())
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// scoreKind reads r (named name in errors) as kind and scores it.
func scoreKind(r io.Reader, name string, kind Kind) (observationReport, error) {
	switch kind {
	case KindSkills:
		return readAndScore(r, name, ReadSkills, ScoreSkills)
	case KindVoice:
		return readAndScore(r, name, ReadVoice, ScoreVoice)
	case KindKnowledge:
		return readAndScore(r, name, ReadKnowledge, ScoreKnowledge)
	case KindCoordination:
		return readAndScore(r, name, ReadCoordination, ScoreCoordination)
	}
	return nil, fmt.Errorf("kind %q is not an observation kind", kind)
}

// readAndScore reads r with read and scores what it read with score.
func readAndScore[T any, R observationReport](r io.Reader, name string, read func(io.Reader, string) (T, error), score func(T) R) (observationReport, error) {
	v, err := read(r, name)
	if err != nil {
		return nil, err
	}
	return score(v), nil
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// readLines reads JSON Lines of T strictly (see [decodeStrict]), calling
// check on each record with its line; blank lines are ignored. The first
// bad line is an error naming name, the line and the field. A file with
// no record is an error too.
func readLines[T any](r io.Reader, name string, check func(rec *T, line int) *LineError) ([]T, error) {
	br := bufio.NewReader(r)
	var recs []T
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("read %s: %w", name, rerr)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var rec T
			_, lerr := decodeStrict(line, &rec, false)
			if lerr == nil {
				lerr = check(&rec, lineNo)
			}
			if lerr != nil {
				lerr.File, lerr.Line = name, lineNo
				return nil, lerr
			}
			recs = append(recs, rec)
		}
		if rerr == io.EOF {
			break
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	return recs, nil
}

// readDocument reads the one JSON document in r into v strictly and
// returns the line of every value in it.
func readDocument(r io.Reader, name string, v any) (located, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoRecords)
	}
	lines, lerr := decodeStrict(data, v, true)
	if lerr != nil {
		lerr.File = name
		return nil, lerr
	}
	return lines, nil
}

// badValue is a check's complaint about field.
func badValue(field, format string, a ...any) *LineError {
	return &LineError{Field: field, Msg: fmt.Sprintf(format, a...), Err: ErrBadValue}
}

// idSet checks that ids are unique and not empty: field is the JSON path
// format of one id ("events[%d].id").
type idSet map[string]string

// add records id at field, refusing an empty or repeated id.
func (s idSet) add(id, field string) *LineError {
	if id == "" {
		return &LineError{Field: field, Msg: "missing id", Err: ErrMissingID}
	}
	if first, dup := s[id]; dup {
		return &LineError{Field: field, Msg: fmt.Sprintf("duplicate id %q (first at %s)", id, first), Err: ErrDuplicateID}
	}
	s[id] = field
	return nil
}

// lineIDs maps the record ids of a JSON Lines file to their lines.
type lineIDs map[string]int

// add records the id of the record on line, whose key is field, refusing
// an empty or repeated id.
func (s lineIDs) add(id, field string, line int) *LineError {
	if id == "" {
		return &LineError{Field: field, Msg: "missing " + field + " id", Err: ErrMissingID}
	}
	if first, dup := s[id]; dup {
		return &LineError{Field: field, Msg: fmt.Sprintf("duplicate %s %q (first on line %d)", field, id, first), Err: ErrDuplicateID}
	}
	s[id] = line
	return nil
}
