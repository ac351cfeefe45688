package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/internal/safecsv"
)

func newItemsCmd(g *globals) *cobra.Command {
	var (
		f         experiment.ItemFilter
		suiteRuns bool
		asJSON    bool
		asCSV     bool
	)
	cmd := &cobra.Command{
		Use:   "items RUN_DIR",
		Short: "List a run's work items or suite runs from runs.db, filtered, as a table, JSON Lines or CSV",
		Long: `List the work items a run stored (one per build, design, scenario and trial, and
the observation run "obs"), or with --suite-runs its suite runs (one design over
every scenario of one build in one trial, as the detection table counts them).
Filters combine; each may be given more than once (or comma-separated).

runs.db is opened read-only and every row listed is checked against its
checksum: a changed or corrupt row is an error naming its table and row.

  baton items out/default-7-cce23cc2 --build cl-intake-action-currency --design C --trial 3
  baton items out/default-7-cce23cc2 --suite-runs --design C --class context_loss --csv

` + exitHelp,
		Args: exactArgs(1, "one RUN_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return &usageError{fmt.Errorf("--json and --csv: pick one")}
			}
			if cmd.Flags().Changed("trial") && f.Trial < 1 {
				return &usageError{fmt.Errorf("--trial %d: want a trial from 1", f.Trial)}
			}
			if suiteRuns && len(f.Scenarios) > 0 {
				return &usageError{fmt.Errorf("--scenario with --suite-runs: a suite run covers every scenario")}
			}
			out := newListing(g.stdout, asJSON, asCSV)
			var err error
			if suiteRuns {
				out.header(suiteHeader)
				err = experiment.SuiteRuns(args[0], f, func(r *experiment.SuiteRun) error { return out.row(r, suiteCells(r)) })
			} else {
				out.header(itemHeader)
				err = experiment.Items(args[0], f, func(it *experiment.StoredItem) error { return out.row(itemJSON(it), itemCells(it)) })
			}
			if err != nil {
				return err // what is buffered, the header at least, is dropped
			}
			return out.flush()
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.Builds, "build", nil, "only these builds (clean or mutant ids)")
	fl.StringSliceVar(&f.Designs, "design", nil, "only these designs (A, B, C, or obs for the observation runs)")
	fl.StringSliceVar(&f.Scenarios, "scenario", nil, "only these scenarios")
	fl.StringSliceVar(&f.Classes, "class", nil, "only the builds of these defect classes")
	fl.IntVar(&f.Trial, "trial", 0, "only this trial")
	fl.BoolVar(&f.Flagged, "flagged", false, "only flagged items (suite runs: those that flagged some scenario)")
	fl.BoolVar(&suiteRuns, "suite-runs", false, "list suite runs instead of items")
	fl.BoolVar(&asJSON, "json", false, "print JSON Lines, one object per row")
	fl.BoolVar(&asCSV, "csv", false, "print CSV (cells that would start a spreadsheet formula are quoted)")
	return cmd
}

var (
	itemHeader  = []string{"item", "class", "flagged", "success", "findings", "blame", "tokens", "trace"}
	suiteHeader = []string{"design", "build", "class", "trial", "scenarios", "flagged", "new_flags", "detected", "top_blame", "exact", "adjacent"}
)

func itemCells(it *experiment.StoredItem) []string {
	success := "-"
	if it.Design == "" {
		success = strconv.FormatBool(it.Success)
	}
	trace := "-"
	switch {
	case it.TraceStored:
		trace = "stored"
	case it.TraceSHA != "":
		trace = "hash"
	}
	return []string{it.ID, orDash(it.Class), strconv.FormatBool(it.Flagged), success, strconv.Itoa(it.Item.Findings),
		orDash(strings.Join(it.Blame, ",")), strconv.Itoa(it.Cost.Tokens), trace}
}

func suiteCells(r *experiment.SuiteRun) []string {
	return []string{r.Design, r.Build, orDash(r.Class), strconv.Itoa(r.Trial), strconv.Itoa(r.Scenarios), strconv.Itoa(r.Flagged),
		strconv.Itoa(r.NewFlags), strconv.FormatBool(r.Detected), orDash(r.TopBlame), strconv.FormatBool(r.Exact), strconv.FormatBool(r.Adjacent)}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// itemRecord is an item as `baton items --json` prints it.
type itemRecord struct {
	ID          string           `json:"id"`
	Build       string           `json:"build"`
	Class       string           `json:"class"`
	Design      string           `json:"design"`
	Scenario    string           `json:"scenario"`
	Category    string           `json:"category"`
	Trial       int              `json:"trial"`
	Seed        string           `json:"seed"`
	Flagged     bool             `json:"flagged"`
	Blame       []string         `json:"blame"`
	Findings    []findingRecord  `json:"findings"`
	Cost        map[string]int64 `json:"cost"`
	Slipped     bool             `json:"slipped"`
	Faulted     bool             `json:"faulted"`
	Reached     int              `json:"reached"`
	Success     *bool            `json:"success,omitempty"`
	Matchers    map[string]int   `json:"matchers,omitempty"`
	RunSHA256   string           `json:"run_sha256,omitempty"`
	TraceSHA256 string           `json:"trace_sha256,omitempty"`
	TraceStored bool             `json:"trace_stored"`
}

type findingRecord struct {
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Location string `json:"location"`
	Evidence any    `json:"evidence"`
}

func itemJSON(it *experiment.StoredItem) *itemRecord {
	r := &itemRecord{ID: it.ID, Build: it.Build, Class: it.Class, Design: it.Design, Scenario: it.Scenario, Category: it.Category,
		Trial: it.Trial, Seed: strconv.FormatUint(it.Seed, 10), Flagged: it.Flagged, Blame: it.Blame, Findings: []findingRecord{},
		Cost: map[string]int64{"model_calls": int64(it.Cost.ModelCalls), "tool_calls": int64(it.Cost.ToolCalls),
			"tokens": int64(it.Cost.Tokens), "environment_resets": int64(it.Cost.EnvironmentResets),
			"fixture_resets": int64(it.Cost.FixtureResets), "emits": int64(it.Cost.Emits), "parses": int64(it.Cost.Parses),
			"contract_checks": int64(it.Cost.ContractChecks), "attribution_steps": int64(it.Cost.AttributionSteps),
			"wall_ns": it.WallNS},
		Slipped: it.Slipped, Faulted: it.Faulted, Reached: it.Reached, RunSHA256: it.TraceHash,
		TraceSHA256: it.TraceSHA, TraceStored: it.TraceStored}
	if r.Design == "" {
		r.Design = experiment.ObservationDesign
		ok := it.Success
		r.Success = &ok
	}
	if r.Blame == nil {
		r.Blame = []string{}
	}
	if it.MatchN > 0 {
		r.Matchers = map[string]int{"n": it.MatchN, "exact": it.MatchExact, "name_only": it.MatchNameOnly, "order_ignored": it.MatchOrderIgnored}
	}
	for _, f := range it.Findings {
		r.Findings = append(r.Findings, findingRecord{f.Rule, f.Message, string(f.Location), f.Evidence})
	}
	return r
}

// listing writes rows as an aligned table, JSON Lines or CSV.
type listing struct {
	tw   *tabwriter.Writer
	enc  *json.Encoder
	csv  *safecsv.Writer
	rows int
}

func newListing(w io.Writer, asJSON, asCSV bool) *listing {
	switch {
	case asJSON:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return &listing{enc: enc}
	case asCSV:
		return &listing{csv: safecsv.NewWriter(w)}
	}
	return &listing{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

func (l *listing) header(cols []string) {
	switch {
	case l.csv != nil:
		l.csv.Write(cols)
	case l.tw != nil:
		fmt.Fprintln(l.tw, strings.ToUpper(strings.Join(cols, "\t")))
	}
}

// row writes one row: v as JSON, or its cells.
func (l *listing) row(v any, cells []string) error {
	l.rows++
	switch {
	case l.enc != nil:
		return l.enc.Encode(v)
	case l.csv != nil:
		for i, c := range cells {
			if c == "-" { // the table's mark for none: an empty cell
				cells[i] = ""
			}
		}
		return l.csv.Write(cells)
	}
	_, err := fmt.Fprintln(l.tw, strings.Join(cells, "\t"))
	return err
}

func (l *listing) flush() error {
	switch {
	case l.csv != nil:
		l.csv.Flush()
		return l.csv.Error()
	case l.tw != nil:
		return l.tw.Flush()
	}
	return nil
}
