package designs

import (
	"fmt"
	"strings"
	"time"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// EndToEnd is design B: the whole mission run in a fresh sandbox, its final
// records and exception report compared with the expected end state.
var EndToEnd = Design{
	ID:     "B",
	Base:   "B",
	Name:   "end-to-end",
	Blames: []LocationKind{BlameAgent},
	Doc: "Runs the whole mission in a fresh sandbox and compares the final system of record and " +
		"exception report with the scenario's expected end state (accepting its listed alternatives). " +
		"Blame comes from the diff: each differing record blames the agent that owns writes to it.",
	Evaluate: func(in Input) (Verdict, error) {
		start := time.Now()
		var v Verdict
		if _, _, err := endState(in, &v); err != nil {
			return v, err
		}
		finish(&v, start)
		return v, nil
	},
}

// endState runs the build end to end and appends a finding per difference
// between its end state and the expected one, blaming the record's writer.
func endState(in Input, v *Verdict) (*mission.Run, []sandbox.Difference, error) {
	run, err := in.Mission.Run(in.ctx(), in.Build, in.Scenario, in.Seed, in.Env)
	if err != nil {
		return nil, nil, err
	}
	v.Cost.Add(run.Cost)
	spec := in.Mission.Spec()
	diffs := in.Mission.Check(in.Scenario, run.End)
	for _, d := range diffs {
		kind, item, _ := strings.Cut(d.Record, ":")
		v.Findings = append(v.Findings, Finding{
			Rule:     "end_state." + kind,
			Message:  fmt.Sprintf("%s %s: want %s, got %s", d.Record, d.Field, d.Want, d.Got),
			Location: mission.Location(spec.Writer(kind)),
			Evidence: Evidence{Run: "integrated", Item: item, Field: d.Field, Seq: lastWrite(spec, run.Trace, kind, item)},
		})
	}
	return run, diffs, nil
}

// lastWrite returns the sequence number of the last tool call in the trace
// that wrote a record of kind for item, or 0.
func lastWrite(spec *mission.Spec, t *mission.Trace, kind, item string) int {
	for i := len(t.Events) - 1; i >= 0; i-- {
		e := t.Events[i]
		if e.Kind == mission.EventToolCall && spec.Tools.RecordOf(e.Tool) == kind && (item == "" || e.Item == item) {
			return e.Seq
		}
	}
	return 0
}
