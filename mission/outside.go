package mission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// View is a turn as a model-backed core shows it to its model: the agent,
// the item and the business day, and the input: the entry agent's input
// document, else the hand-offs as the agent's parser read them (so that a
// parser seam acts on what a model reads as it does on a policy).
type View struct {
	Agent    Agent      `json:"agent"`
	Item     string     `json:"item"`
	Day      string     `json:"day"`
	Input    *Input     `json:"input,omitempty"`
	Messages []*Handoff `json:"messages,omitempty"`
}

// View returns the turn as a model sees it.
func (t *Turn) View() View {
	return View{Agent: t.Agent, Item: t.Item, Day: t.Day, Input: t.Input, Messages: t.Messages}
}

// Seed returns the trial seed the run's keyed dice are drawn from: the
// same for every build and design of a trial, so a model-backed core can
// send it as its requests' sample (see [PlayOutside]). It makes a
// recorded run opaque (see [sandbox.Draws]).
func (t *Turn) Seed() uint64 {
	t.r.dice.Draws().MarkOpaque()
	return t.r.seed
}

// ErrNotKernel is returned for a mission that the kernel's engine does not
// run (a test double, or a wrapper without an Unwrap() Mission method): it
// cannot be played outside a run.
var ErrNotKernel = errors.New("not a mission made by mission.New")

// kernelOf returns the engine of m, looking through wrappers that add
// methods to a kernel mission and give it back with Unwrap.
func kernelOf(m Mission) (*engine, error) {
	for inner := m; inner != nil; {
		if e, ok := inner.(*engine); ok {
			return e, nil
		}
		w, ok := inner.(interface{ Unwrap() Mission })
		if !ok {
			break
		}
		inner = w.Unwrap()
	}
	return nil, fmt.Errorf("%T: %w", m, ErrNotKernel)
}

// DecodeView reads a [View] of one of m's turns back from its JSON: the
// input's attachment in m's terms (its Definition.NewAttachment), the
// hand-offs' payloads as decoded JSON. The agent must be one of m's.
func DecodeView(m Mission, data []byte) (View, error) {
	e, err := kernelOf(m)
	if err != nil {
		return View{}, fmt.Errorf("decode view: %w", err)
	}
	var v struct {
		View
		Input *struct {
			Input
			Attachment json.RawMessage `json:"attachment"`
		} `json:"input"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return View{}, fmt.Errorf("decode view: %w", err)
	}
	out := v.View
	if e.t.agent(out.Agent) < 0 {
		return View{}, fmt.Errorf("decode view: mission %s has no agent %q", e.spec.Name, out.Agent)
	}
	if in := v.Input; in != nil {
		out.Input = &in.Input
		if a := bytes.TrimSpace(in.Attachment); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
			if e.def.NewAttachment == nil {
				return View{}, fmt.Errorf("decode view: mission %s's inputs carry no attachment", e.spec.Name)
			}
			att := e.def.NewAttachment()
			if err := json.Unmarshal(a, att); err != nil {
				return View{}, fmt.Errorf("decode view: input %s: attachment: %w", in.ID, err)
			}
			out.Input.Attachment = att
		}
	}
	return out, nil
}

// Answer answers a tool call of a core played outside any run, in place of
// the tool box: the result, or the error the tool box would have returned
// after its retries.
type Answer func(tool string, args sandbox.Args) (sandbox.Result, *sandbox.Error)

// PlayOutside plays m's own core of v's agent (its policy) on the turn v
// outside any run: no sandbox and no seams; every tool call is answered by
// answer, and the core's slips are drawn from the keyed dice of seed with
// profile's rates, exactly as a run of that trial seed draws them. It
// returns the core's result and its tool calls. A scripted model uses it to
// play a mission's policy from the conversation a model core holds with it.
func PlayOutside(ctx context.Context, m Mission, v View, seed uint64, profile Profile, answer Answer) (Result, []ToolCall, error) {
	e, err := kernelOf(m)
	if err != nil {
		return nil, nil, fmt.Errorf("play outside: %w", err)
	}
	core, ok := e.def.Cores[v.Agent]
	if !ok || core == nil {
		return nil, nil, fmt.Errorf("play outside: mission %s has no core for agent %q", e.spec.Name, v.Agent)
	}
	start, day := dayStart(&Scenario{Day: v.Day})
	r := &runner{
		e: e, t: e.t, ctx: ctx, seams: NoSeams{}, day: day,
		clock: sandbox.NewClock(start), dice: sandbox.NewDice(seed), seed: seed,
		profile: profile, answer: answer, enc: jsontext.GetEncoder(),
	}
	defer r.release()
	t := &Turn{Agent: v.Agent, Item: v.Item, Day: day, Input: v.Input, Messages: v.Messages, r: r}
	r.cur = t
	res, err := core.Play(ctx, t)
	if err != nil {
		return nil, t.calls, fmt.Errorf("play outside: %s %s: %w", v.Agent, v.Item, err)
	}
	return res, t.calls, nil
}
