package mission

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toySeams acts as its fields say, on edge a->b and agent a only.
type toySeams struct {
	NoSeams
	oracle *Oracle
	set    string // Emit sets payload.x to it, when not ""
	reach  bool   // every hook reaches
	panics bool
}

var toyEdge = Edge{From: "a", To: "b"}

func (s *toySeams) Emit(e Edge, msg *Message) {
	if e != toyEdge {
		return
	}
	if s.panics {
		panic("toy")
	}
	if s.reach {
		s.oracle.Reach()
	}
	if s.set != "" {
		msg.Object("payload").Set("x", s.set)
	}
}

func (s *toySeams) Decide(agent Agent, _, _, choice string) string {
	if agent == "a" && s.set != "" {
		return s.set
	}
	return choice
}

// placedToy lists the one edge's emitter.
type placedToy struct{ toySeams }

func (s *placedToy) Places() []Place { return []Place{{Hook: HookEmit, Edge: toyEdge}} }

func TestProbeCovers(t *testing.T) {
	msg := func() *Message { return mustMessage(t, `{"next_owner":["b"],"payload":{"x":"same","n":1}}`) }
	for _, tc := range []struct {
		name  string
		build func(o *Oracle) Build
		calls func(s Seams)
		want  bool
	}{
		{"changes nothing", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, set: "same"}, o) },
			func(s Seams) { s.Emit(toyEdge, msg()) }, false},
		{"changes the message", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, set: "other"}, o) },
			func(s Seams) { s.Emit(toyEdge, msg()) }, true},
		{"reaches without a change", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, reach: true}, o) },
			func(s Seams) { s.Emit(toyEdge, msg()) }, true},
		{"acts on another edge only", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, set: "other"}, o) },
			func(s Seams) { s.Emit(Edge{From: "b", To: "a"}, msg()) }, false},
		{"changes a decision", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, set: "x"}, o) },
			func(s Seams) { s.Decide("a", "route", "i1", "y") }, true},
		{"placed elsewhere than the decision it changes", func(o *Oracle) Build { return NewBuild(&placedToy{toySeams{oracle: o, set: "x"}}, o) },
			func(s Seams) { s.Decide("a", "route", "i1", "y") }, false},
		{"panics", func(o *Oracle) Build { return NewBuild(&toySeams{oracle: o, panics: true}, o) },
			func(s Seams) { s.Emit(toyEdge, msg()) }, true},
		{"no oracle to show a reach", func(*Oracle) Build { return NewBuild(&toySeams{}, nil) },
			func(Seams) {}, true},
		{"the clean build", func(o *Oracle) Build { return Clean().WithOracle(o) },
			func(s Seams) { s.Emit(toyEdge, msg()); s.Decide("a", "route", "i1", "y") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProbe([]Build{tc.build(&Oracle{})})
			tc.calls(p.Build(nil).hooks())
			if got := p.Covers(0); got != tc.want {
				t.Errorf("Covers = %v, want %v", got, tc.want)
			}
			p.Reset()
			if tc.name != "no oracle to show a reach" && p.Covers(0) {
				t.Error("Covers after Reset")
			}
		})
	}
}

func TestProbeLeavesArgumentsAlone(t *testing.T) {
	o := &Oracle{}
	p := NewProbe([]Build{NewBuild(&toySeams{oracle: o, set: "other"}, o)})
	m := mustMessage(t, `{"payload":{"x":"same"}}`)
	p.Build(nil).hooks().Emit(toyEdge, m)
	if d := cmp.Diff(`{"payload":{"x":"same"}}`, string(mustJSON(t, m))); d != "" {
		t.Errorf("the clean message changed (-want +got):\n%s", d)
	}
}

func TestEqualValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b any
		want bool
	}{
		{"numbers", 1.0, 1.0, true},
		{"a number and its text", 1.0, "1", false},
		{"NaN", math.NaN(), math.NaN(), false},
		{"nil and empty object", map[string]any(nil), map[string]any{}, false},
		{"nested", map[string]any{"a": []any{"x", 2.0}}, map[string]any{"a": []any{"x", 2.0}}, true},
		{"nested differ", map[string]any{"a": []any{"x", 2.0}}, map[string]any{"a": []any{"x", 3.0}}, false},
		{"typed slices", []string{"a"}, []string{"a"}, true},
		{"typed and untyped", []string{"a"}, []any{"a"}, false},
	} {
		if got := equalValue(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: equalValue = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && !equalValue(cloneValue(tc.a), tc.a) {
			t.Errorf("%s: a copy differs", tc.name)
		}
	}
}
