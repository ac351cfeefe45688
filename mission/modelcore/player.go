package modelcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/sandbox"
)

// Player is the scripted model of `baton model serve --mission`: it plays
// a mission's policy cores with a protocol's slips (see the package
// documentation). It keeps no state and reads no clock: an answer depends on
// the request alone.
type Player struct {
	m       mission.Mission
	profile mission.Profile
}

var _ model.Player = (*Player)(nil)

// NewPlayer returns the player of m's policy cores with profile's slip
// rates. m must be a mission made by mission.New.
func NewPlayer(m mission.Mission, profile mission.Profile) *Player {
	return &Player{m: m, profile: profile}
}

// PlayerModel is the model name `baton model serve --mission` serves a
// mission's player under.
func PlayerModel(missionName string) string { return missionName + "-policy" }

// Errors of the player.
var (
	errNoSeed     = errors.New("the request carries no seed: a mission player needs the trial seed the core sends")
	errNoView     = errors.New("the conversation has no user message holding the turn")
	errDeparted   = errors.New("the conversation departs from the policy")
	errNotPlaying = &sandbox.Error{Kind: sandbox.ErrUnavailable, Code: "PLAYER", Message: "not answered yet"}
)

// answered is one tool call of the conversation and its tool message.
type answered struct {
	name, content string
}

// Play answers the conversation's next turn: the policy's first tool call
// not yet answered in it, else the policy's result.
func (p *Player) Play(ctx context.Context, req model.Request) (model.Response, error) {
	if req.Seed == nil {
		return model.Response{}, errNoSeed
	}
	view, calls, err := p.read(req.Messages)
	if err != nil {
		return model.Response{}, err
	}
	k := 0
	var next *mission.ToolCall
	var departed error
	answer := func(tool string, args sandbox.Args) (sandbox.Result, *sandbox.Error) {
		i := k
		k++
		switch {
		case next != nil || departed != nil:
			return nil, errNotPlaying
		case i == len(calls):
			next = &mission.ToolCall{Name: tool, Args: args}
			return nil, errNotPlaying
		case calls[i].name != tool:
			departed = fmt.Errorf("%w: tool call %d is %s, the policy calls %s", errDeparted, i+1, calls[i].name, tool)
			return nil, errNotPlaying
		}
		return toolAnswer(calls[i].content)
	}
	res, _, err := mission.PlayOutside(ctx, p.m, view, uint64(*req.Seed), p.profile, answer)
	switch {
	case err != nil:
		return model.Response{}, err
	case departed != nil:
		return model.Response{}, departed
	case next != nil:
		args, err := json.Marshal(next.Args)
		if err != nil {
			return model.Response{}, fmt.Errorf("tool %s: arguments: %w", next.Name, err)
		}
		id := "call_" + strconv.Itoa(len(calls))
		return model.Response{ToolCalls: []model.ToolCall{{ID: id, Name: next.Name, Arguments: string(args)}}, FinishReason: "tool_calls"}, nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		return model.Response{}, fmt.Errorf("result: %w", err)
	}
	return model.Response{Content: string(out), FinishReason: "stop"}, nil
}

// read returns the view the conversation's first user message holds and
// the tool calls answered so far, in order.
func (p *Player) read(msgs []model.Message) (mission.View, []answered, error) {
	var view mission.View
	seen := false
	var calls []answered
	pending := map[string]int{}
	for _, m := range msgs {
		switch {
		case m.Role == model.RoleUser && !seen:
			v, err := mission.DecodeView(p.m, []byte(m.Content))
			if err != nil {
				return view, nil, err
			}
			view, seen = v, true
		case m.Role == model.RoleAssistant:
			for _, tc := range m.ToolCalls {
				pending[tc.ID] = len(calls)
				calls = append(calls, answered{name: tc.Name})
			}
		case m.Role == model.RoleTool:
			i, ok := pending[m.ToolCallID]
			if !ok {
				return view, nil, fmt.Errorf("%w: a tool message answers no call (%q)", errDeparted, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			calls[i].content = m.Content
		}
	}
	if !seen {
		return view, nil, errNoView
	}
	if len(pending) > 0 {
		return view, nil, fmt.Errorf("%w: %d tool calls unanswered", errDeparted, len(pending))
	}
	return view, calls, nil
}

// toolAnswer reads a tool message back into what the tool box returned:
// {"error": {kind, code, message, retry_after}} is the error, anything
// else the result.
func toolAnswer(content string) (sandbox.Result, *sandbox.Error) {
	var wrapped struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(content), &wrapped) == nil && len(wrapped.Error) > 0 {
		var e sandbox.Error
		if json.Unmarshal(wrapped.Error, &e) == nil && e.Kind != "" {
			return nil, &e
		}
		var msg string
		_ = json.Unmarshal(wrapped.Error, &msg)
		return nil, sandbox.Invalid(msg)
	}
	var res sandbox.Result
	if err := json.Unmarshal([]byte(content), &res); err != nil {
		return nil, sandbox.Invalid("tool message is not a JSON object: " + err.Error())
	}
	return res, nil
}
