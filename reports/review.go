package reports

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/internal/safecsv"
)

// ReviewCandidate is one (build, scenario, trial) the experiment offers for
// human review: who built it and how the designs judged it (kept in the
// private key) and what a reviewer sees (emails, hand-offs, end state and
// the scenario's expected end state).
type ReviewCandidate struct {
	Build    string          // "clean" or a mutant id: never shown
	Class    string          // "" for clean: never shown
	Scenario string          // shown
	Category string          // shown
	Trial    int             // never shown
	Seed     uint64          // never shown
	Flagged  map[string]bool // design id -> flagged: never shown

	Emails   []ReviewEmail
	Handoffs []ReviewHandoff // in the order they were sent
	EndState string          // the end state of the system of record, JSON
	Expected string          // the scenario's authored expected end state
}

// ReviewEmail is one inbound email as the reviewer reads it.
type ReviewEmail struct {
	ID      string
	From    string
	Subject string
	Body    string
}

// ReviewHandoff is one hand-off message: its edge and its raw wire bytes.
type ReviewHandoff struct {
	Edge string
	Raw  string
}

// AgreementRow is Cohen's kappa between two raters (a design's verdicts or
// a reviewer's labels) on the review samples both rated; "fail" is a flag.
// Rate and CI95 are the observed agreement (Agree of N); Kappa, KappaSE and
// KappaCI95 come from [KappaCI]. Sample is the size of the exported sample:
// N below it means a rater labelled only part of it.
type AgreementRow struct {
	A        string `json:"a"`
	AKind    string `json:"a_kind"` // design or reviewer
	B        string `json:"b"`
	BKind    string `json:"b_kind"`
	N        int    `json:"n"`
	BothFail int    `json:"both_fail"`
	OnlyA    int    `json:"only_a_fail"`
	OnlyB    int    `json:"only_b_fail"`
	BothPass int    `json:"both_pass"`
	Agree    int    `json:"agree"`
	Rate     F4     `json:"rate"`
	CI95     CI     `json:"ci95"`
	Kappa    *F4    `json:"kappa"` // null when undefined
	KappaSE  *F4    `json:"kappa_se"`
	// KappaCI95 is the 95% interval of kappa, [-1, 1] when undefined.
	KappaCI95 CI  `json:"kappa_ci95"`
	Sample    int `json:"sample"`
}

// ReviewKeyFile is the private review key's name in the run folder: which
// build, trial and verdicts each sample id stands for. It lies outside the
// review folder, which is what reviewers receive, so that handing them the
// folder cannot unblind them.
const ReviewKeyFile = "review-key.json"

// Review file names under the review folder.
const (
	reviewDir     = "review"
	sampleFile    = "sample.csv"
	packFile      = "pack.html"
	legacyKeyFile = "key.json" // where exports before review-key.json kept the key
	labelsPrefix  = "labels-"
	keySchema     = "baton.review-key/v1"
)

var reviewerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// reviewKey is the private key: which build, trial and verdicts each
// sample id stands for.
type reviewKey struct {
	Schema  string     `json:"schema"`
	Seed    uint64     `json:"seed"`
	Samples []keyEntry `json:"samples"`
}

type keyEntry struct {
	SampleID string          `json:"sample_id"`
	Stratum  string          `json:"stratum"`
	Build    string          `json:"build"`
	Class    string          `json:"class"`
	Scenario string          `json:"scenario"`
	Category string          `json:"category"`
	Trial    int             `json:"trial"`
	Seed     uint64          `json:"seed"`
	Flagged  map[string]bool `json:"flagged"`
}

// stratum is "<class or clean>/<flagged or not_flagged>", flagged meaning
// any design flagged.
func stratum(c ReviewCandidate) string {
	class := cmp.Or(c.Class, CleanBuild)
	for _, f := range c.Flagged {
		if f {
			return class + "/flagged"
		}
	}
	return class + "/not_flagged"
}

// ExportReview writes a blinded, stratified sample of at most size
// candidates to dir/review: sample.csv (sample_id, scenario, category and
// an empty verdict column) and pack.html (each sample's emails, hand-offs,
// end state and expected end state), for the reviewers; and the private
// key to dir/review-key.json ([ReviewKeyFile]), outside the folder the
// reviewers receive (an older review/key.json is removed). Strata are
// the clean build and every class, each split into flagged by some design
// and not; samples are drawn round-robin over the strata so each is
// represented, and shuffled with a *rand.Rand seeded from seed. It refuses
// to overwrite a review folder that already holds labels.
func ExportReview(dir string, items []ReviewCandidate, size int, seed uint64) error {
	if size <= 0 {
		return fmt.Errorf("export review: %w: sample size %d, want > 0", ErrReview, size)
	}
	rdir := filepath.Join(dir, reviewDir)
	if labels, _ := filepath.Glob(filepath.Join(rdir, labelsPrefix+"*.csv")); len(labels) > 0 {
		return fmt.Errorf("export review: %w: %s already holds imported labels (%s); export into a new run folder", ErrReview, rdir, filepath.Base(labels[0]))
	}
	sample := drawSample(items, size, seed)

	width := max(3, len(fmt.Sprint(len(sample))))
	key := reviewKey{Schema: keySchema, Seed: seed, Samples: make([]keyEntry, len(sample))}
	for i, c := range sample {
		key.Samples[i] = keyEntry{
			SampleID: fmt.Sprintf("R%0*d", width, i+1), Stratum: stratum(c),
			Build: c.Build, Class: c.Class, Scenario: c.Scenario, Category: c.Category,
			Trial: c.Trial, Seed: c.Seed, Flagged: c.Flagged,
		}
	}

	var sb bytes.Buffer
	w := safecsv.NewWriter(&sb)
	w.Write([]string{"sample_id", "scenario", "category", "verdict"})
	for i, c := range sample {
		w.Write([]string{key.Samples[i].SampleID, c.Scenario, c.Category, ""})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("export review: %w", err)
	}
	pack, err := renderPack(key, sample)
	if err != nil {
		return fmt.Errorf("export review: %w", err)
	}
	kb, err := json.MarshalIndent(key, "", "  ")
	if err != nil {
		return fmt.Errorf("export review: %w", err)
	}
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		return fmt.Errorf("export review: %w", err)
	}
	// The key first: a sample is never out without the key that reads it.
	if err := writeBytesAtomic(filepath.Join(dir, ReviewKeyFile), append(kb, '\n')); err != nil {
		return fmt.Errorf("export review: %w", err)
	}
	if err := os.Remove(filepath.Join(rdir, legacyKeyFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export review: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{sampleFile, sb.Bytes()}, {packFile, pack}} {
		if err := writeBytesAtomic(filepath.Join(rdir, f.name), f.data); err != nil {
			return fmt.Errorf("export review: %w", err)
		}
	}
	return nil
}

// SampleReview draws the stratified, shuffled sample ExportReview would
// export from items. Callers that fill candidates lazily (the emails,
// hand-offs and end states are costly to regenerate) draw the sample first
// and fill only what it keeps.
func SampleReview(items []ReviewCandidate, size int, seed uint64) []ReviewCandidate {
	return drawSample(items, size, seed)
}

// drawSample picks the stratified sample and shuffles it.
func drawSample(items []ReviewCandidate, size int, seed uint64) []ReviewCandidate {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b ReviewCandidate) int {
		return cmp.Or(cmp.Compare(a.Build, b.Build), cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Trial, b.Trial))
	})
	rng := rand.New(rand.NewPCG(seed, 0x62617465_6e726576)) // "batenrev"
	strata := make(map[string][]ReviewCandidate)
	for _, c := range sorted {
		s := stratum(c)
		strata[s] = append(strata[s], c)
	}
	names := slices.Sorted(maps.Keys(strata))
	for _, n := range names {
		s := strata[n]
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	}
	var out []ReviewCandidate
	for round := 0; len(out) < size; round++ {
		took := false
		for _, n := range names {
			if s := strata[n]; round < len(s) && len(out) < size {
				out = append(out, s[round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// packCSS is the review pack's style sheet, which its policy admits by
// hash: the pack runs no script and loads nothing, whatever an email in
// it carries.
const packCSS = `
body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-top:2px solid #888;margin-top:2rem;padding-top:.5rem}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.email{border-left:3px solid #49c;padding-left:.5rem;margin:.5rem 0}
`

var packTmpl = template.Must(template.New("pack").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ` + sourceHash(packCSS) + `; base-uri 'none'; form-action 'none'">
<title>baton review pack</title>
<style>` + packCSS + `</style>
</head>
<body>
<h1>Review pack</h1>
<p>For each sample, read the emails, the hand-offs between agents and the end
state, and judge whether the mission handled the day correctly. Write
<code>pass</code> or <code>fail</code> in the verdict column of
<code>sample.csv</code> and import it with
<code>baton review import --reviewer NAME FILE.csv</code>.</p>
<ul>{{range .}}<li><a href="#{{.ID}}">{{.ID}}</a> {{.Scenario}}</li>{{end}}</ul>
{{range .}}
<section id="{{.ID}}">
<h2>{{.ID}} — scenario {{.Scenario}} ({{.Category}})</h2>
<h3>Emails</h3>
{{range .Emails}}<div class="email"><p><b>{{.ID}}</b> from {{.From}}<br>Subject: {{.Subject}}</p><pre>{{.Body}}</pre></div>
{{else}}<p>No emails.</p>{{end}}
<h3>Hand-offs</h3>
{{range .Handoffs}}<p>{{.Edge}}</p><pre>{{.Raw}}</pre>
{{else}}<p>No hand-offs.</p>{{end}}
<h3>End state</h3>
<pre>{{.EndState}}</pre>
<h3>Expected end state</h3>
<pre>{{.Expected}}</pre>
</section>
{{end}}
</body>
</html>
`))

type packItem struct {
	ID, Scenario, Category string
	Emails                 []ReviewEmail
	Handoffs               []ReviewHandoff
	EndState, Expected     string
}

// renderPack writes the reviewers' pack, sorted by sample id; every string
// is escaped by html/template.
func renderPack(key reviewKey, sample []ReviewCandidate) ([]byte, error) {
	items := make([]packItem, len(sample))
	for i, c := range sample {
		hs := make([]ReviewHandoff, len(c.Handoffs))
		for j, h := range c.Handoffs {
			hs[j] = ReviewHandoff{Edge: h.Edge, Raw: prettyJSON(h.Raw)}
		}
		items[i] = packItem{
			ID: key.Samples[i].SampleID, Scenario: c.Scenario, Category: c.Category,
			Emails: c.Emails, Handoffs: hs,
			EndState: prettyJSON(c.EndState), Expected: prettyJSON(c.Expected),
		}
	}
	slices.SortFunc(items, func(a, b packItem) int { return cmp.Compare(a.ID, b.ID) })
	var b bytes.Buffer
	if err := packTmpl.Execute(&b, items); err != nil {
		return nil, fmt.Errorf("render pack: %w", err)
	}
	return b.Bytes(), nil
}

// prettyJSON indents s when it is JSON and returns it unchanged otherwise.
func prettyJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

// loadKey reads the run's review key: dir/review-key.json, or, for a
// sample exported before the key moved out of the review folder,
// dir/review/key.json.
func loadKey(dir string) (reviewKey, string, error) {
	path := filepath.Join(dir, ReviewKeyFile)
	var k reviewKey
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		legacy := filepath.Join(dir, reviewDir, legacyKeyFile)
		if lb, lerr := os.ReadFile(legacy); lerr == nil {
			b, err, path = lb, nil, legacy
		}
	}
	if err != nil {
		return k, path, fmt.Errorf("%w: no exported sample: %w", ErrReview, err)
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return k, path, fmt.Errorf("%w: %s: %w", ErrReview, path, err)
	}
	if k.Schema != keySchema {
		return k, path, fmt.Errorf("%w: %s: schema %q, want %q", ErrReview, path, k.Schema, keySchema)
	}
	return k, path, nil
}

// label is one reviewer verdict read from a file.
type label struct {
	verdict string
	line    int
}

// Bounds on a label file, far above a review sample's (a few hundred rows).
const (
	// MaxLabelsBytes bounds a label file.
	MaxLabelsBytes = 4 << 20
	// MaxLabelRows bounds the rows of a label file.
	MaxLabelRows = 100_000
)

// readLabels reads a sample_id,verdict file and validates every row
// against the known sample ids. Errors name file, line and value.
func readLabels(path string, known map[string]bool) (map[string]label, error) {
	data, err := input.ReadFile(path, MaxLabelsBytes, "a label file")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReview, err)
	}
	return parseLabels(path, bytes.NewReader(data), known)
}

// parseLabels reads a label file: a header naming the sample_id and verdict
// columns (each once; other columns are ignored), then at least one row.
// Every problem is an [*input.Error] naming file, line and column; a few
// dozen are reported and the rest counted.
func parseLabels(path string, r io.Reader, known map[string]bool) (map[string]label, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxLabelsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrReview, path, err)
	}
	var errs input.Collector
	fail := func(line, col int, field, format string, args ...any) {
		errs.Add(&input.Error{File: path, Pos: input.Pos{Line: line, Column: col}, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	wrap := func() error { return fmt.Errorf("%w: %w", ErrReview, errs.Err()) }
	if len(data) > MaxLabelsBytes {
		fail(0, 0, "", "larger than the %s a label file may be", input.Size(MaxLabelsBytes))
		return nil, wrap()
	}
	if i := input.InvalidUTF8(data); i >= 0 {
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		fail(line, 0, "", "invalid UTF-8 (byte 0x%02x): not a text file", data[i])
		return nil, wrap()
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		fail(1, 0, "", "missing header sample_id,verdict (empty file)")
		return nil, wrap()
	}
	if err != nil {
		addCSVError(&errs, path, err)
		return nil, wrap()
	}
	idCol, vCol := labelColumns(&errs, path, header)
	if errs.Len() > 0 {
		return nil, wrap()
	}
	out := make(map[string]label)
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			addCSVError(&errs, path, err)
			break
		}
		line, _ := cr.FieldPos(0)
		if rows++; rows > MaxLabelRows {
			fail(line, 0, "", "more than %d rows: more than a review sample has", MaxLabelRows)
			break
		}
		if max(idCol, vCol) >= len(rec) {
			fail(line, 0, "", "want columns sample_id and verdict, got %s", input.Quote(strings.Join(rec, ",")))
			continue
		}
		id := strings.TrimSpace(rec[idCol])
		v := strings.ToLower(strings.TrimSpace(rec[vCol]))
		_, idPos := cr.FieldPos(idCol)
		_, vPos := cr.FieldPos(vCol)
		switch {
		case !known[id]:
			fail(line, idPos, "sample_id", "unknown sample id %s", input.Quote(rec[idCol]))
		case out[id].line > 0:
			fail(line, idPos, "sample_id", "duplicate row for %s (first on line %d)", input.Quote(id), out[id].line)
		case v != "pass" && v != "fail":
			fail(line, vPos, "verdict", "%s is not pass or fail", input.Quote(rec[vCol]))
		default:
			out[id] = label{verdict: v, line: line}
		}
	}
	if errs.Len() > 0 {
		return nil, wrap()
	}
	if len(out) == 0 {
		fail(1, 0, "", "a header and no labels: want one row per sample labelled")
		return nil, wrap()
	}
	return out, nil
}

// labelColumns finds the sample_id and verdict columns of a header; a
// header missing either, or naming one twice, is a problem.
func labelColumns(errs *input.Collector, path string, header []string) (idCol, vCol int) {
	idCol, vCol = -1, -1
	for i, h := range header {
		var col *int
		switch name := strings.ToLower(strings.TrimSpace(h)); name {
		case "sample_id":
			col = &idCol
		case "verdict":
			col = &vCol
		default:
			continue
		}
		if *col >= 0 {
			errs.Add(&input.Error{File: path, Pos: input.Pos{Line: 1, Column: i + 1}, Field: "header",
				Problem: fmt.Sprintf("column %s given twice (columns %d and %d)", input.Quote(strings.TrimSpace(h)), *col+1, i+1)})
			continue
		}
		*col = i
	}
	if idCol < 0 || vCol < 0 {
		errs.Add(&input.Error{File: path, Pos: input.Pos{Line: 1}, Field: "header",
			Problem: fmt.Sprintf("missing header sample_id,verdict (got %s)", input.Quote(strings.Join(header, ",")))})
	}
	return idCol, vCol
}

// addCSVError records a CSV syntax error at the line and column it names.
func addCSVError(errs *input.Collector, path string, err error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		errs.Add(&input.Error{File: path, Pos: input.Pos{Line: pe.Line, Column: pe.Column}, Problem: "invalid CSV: " + pe.Err.Error()})
		return
	}
	errs.Add(&input.Error{File: path, Problem: "invalid CSV: " + err.Error()})
}

// ImportOptions set up [ImportReview].
type ImportOptions struct {
	// Replace lets a reviewer already imported be imported again: the new
	// file replaces the earlier labels whole. Without it a second import of
	// the same reviewer is refused.
	Replace bool
}

// ImportSummary is what [ImportReview] stored.
type ImportSummary struct {
	Reviewer string
	Labelled int  // samples the reviewer labelled
	Sample   int  // samples in the exported sample
	Replaced bool // earlier labels of the reviewer were replaced
}

// Partial reports whether the reviewer labelled only part of the sample:
// the import is accepted, and kappa is computed on the samples labelled,
// with that n shown.
func (s ImportSummary) Partial() bool { return s.Labelled < s.Sample }

// Warning says, for a partial import, how much of the sample it covers; ""
// otherwise.
func (s ImportSummary) Warning() string {
	if !s.Partial() {
		return ""
	}
	return fmt.Sprintf("reviewer %s labelled %d of the %d samples: agreement with %s is computed on those %d only", s.Reviewer, s.Labelled, s.Sample, s.Reviewer, s.Labelled)
}

// ImportReview reads reviewer's labels from csvPath (header sample_id,verdict;
// verdict pass or fail; other columns ignored) and stores them in
// dir/review/labels-<reviewer>.csv. The whole file is validated first: an
// unknown sample id, a duplicate row, a bad verdict or a missing header is an
// error naming file, line and value, and nothing is written. A file that
// labels only part of the sample is accepted; the summary says how much
// ([ImportSummary.Warning]). A reviewer already imported is refused unless
// opt.Replace, which replaces the earlier labels whole.
func ImportReview(dir, reviewer, csvPath string, opt ImportOptions) (ImportSummary, error) {
	sum := ImportSummary{Reviewer: reviewer}
	if !reviewerName.MatchString(reviewer) {
		return sum, fmt.Errorf("import review: %w: reviewer %q: want letters, digits, _ or -", ErrReview, reviewer)
	}
	key, _, err := loadKey(dir)
	if err != nil {
		return sum, fmt.Errorf("import review: %w", err)
	}
	known := make(map[string]bool, len(key.Samples))
	for _, s := range key.Samples {
		known[s.SampleID] = true
	}
	labels, err := readLabels(csvPath, known)
	if err != nil {
		return sum, fmt.Errorf("import review: %w", err)
	}
	dest := filepath.Join(dir, reviewDir, labelsPrefix+reviewer+".csv")
	switch _, err := os.Stat(dest); {
	case err == nil && !opt.Replace:
		return sum, fmt.Errorf("import review: %w: reviewer %s is already imported (%s); import again with --replace to replace those labels", ErrReview, reviewer, dest)
	case err == nil:
		sum.Replaced = true
	case !errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("import review: %w", err)
	}
	var b bytes.Buffer
	w := safecsv.NewWriter(&b)
	w.Write([]string{"sample_id", "verdict"})
	for _, id := range slices.Sorted(maps.Keys(labels)) {
		w.Write([]string{id, labels[id].verdict})
	}
	w.Flush()
	if err := writeBytesAtomic(dest, b.Bytes()); err != nil {
		return sum, fmt.Errorf("import review: %w", err)
	}
	sum.Labelled, sum.Sample = len(labels), len(key.Samples)
	return sum, nil
}

// Agreement computes Cohen's kappa of each design against each imported
// reviewer and between every two reviewers, on the samples both rated; a
// design's flag counts as fail. With no reviewer imported it returns no
// rows.
func Agreement(dir string) ([]AgreementRow, error) {
	key, _, err := loadKey(dir)
	if err != nil {
		return nil, fmt.Errorf("agreement: %w", err)
	}
	known := make(map[string]bool, len(key.Samples))
	designSet := make(map[string]bool)
	for _, s := range key.Samples {
		known[s.SampleID] = true
		for d := range s.Flagged {
			designSet[d] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, reviewDir, labelsPrefix+"*.csv"))
	if err != nil {
		return nil, fmt.Errorf("agreement: %w", err)
	}
	slices.Sort(files)
	type reviewer struct {
		name   string
		labels map[string]label
	}
	var revs []reviewer
	for _, f := range files {
		l, err := readLabels(f, known)
		if err != nil {
			return nil, fmt.Errorf("agreement: %w", err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), labelsPrefix), ".csv")
		revs = append(revs, reviewer{name, l})
	}
	rows := []AgreementRow{}
	for _, d := range slices.Sorted(maps.Keys(designSet)) {
		for _, rv := range revs {
			row := AgreementRow{A: d, AKind: "design", B: rv.name, BKind: "reviewer", Sample: len(key.Samples)}
			for _, s := range key.Samples {
				flag, ok := s.Flagged[d]
				l, labelled := rv.labels[s.SampleID]
				if ok && labelled {
					row.add(flag, l.verdict == "fail")
				}
			}
			rows = append(rows, row.finish())
		}
	}
	for i, a := range revs {
		for _, b := range revs[i+1:] {
			row := AgreementRow{A: a.name, AKind: "reviewer", B: b.name, BKind: "reviewer", Sample: len(key.Samples)}
			for _, s := range key.Samples {
				la, okA := a.labels[s.SampleID]
				lb, okB := b.labels[s.SampleID]
				if okA && okB {
					row.add(la.verdict == "fail", lb.verdict == "fail")
				}
			}
			rows = append(rows, row.finish())
		}
	}
	return rows, nil
}

func (r *AgreementRow) add(aFail, bFail bool) {
	r.N++
	switch {
	case aFail && bFail:
		r.BothFail++
	case aFail:
		r.OnlyA++
	case bFail:
		r.OnlyB++
	default:
		r.BothPass++
	}
}

func (r AgreementRow) finish() AgreementRow {
	r.Agree = r.BothFail + r.BothPass
	r.Rate, r.CI95 = rateOf(r.Agree, r.N), wilsonCI(r.Agree, r.N)
	k, se, lo, hi, ok := KappaCI(r.BothFail, r.OnlyA, r.OnlyB, r.BothPass)
	r.KappaCI95 = ciOf(lo, hi)
	if ok {
		kf, sef := f4(k), f4(se)
		r.Kappa, r.KappaSE = &kf, &sef
	}
	return r
}

// RefreshAgreement recomputes reviewer agreement from dir/review and
// re-renders the reports in dir from its results.json, with each design's
// wall-clock time (ms, from the run's manifest; results.json leaves it out):
// what `baton review import` does after [ImportReview].
func RefreshAgreement(dir string, wall map[string]int64) error {
	rows, err := Agreement(dir)
	if err != nil {
		return err
	}
	r, err := LoadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		return fmt.Errorf("refresh agreement: %w", err)
	}
	r.SetAgreement(rows)
	r.SetWall(wall)
	if err := WriteAll(dir, r); err != nil {
		return fmt.Errorf("refresh agreement: %w", err)
	}
	return nil
}
