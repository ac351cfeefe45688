package modelcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/sandbox"
)

// Config is one agent's model-backed core.
type Config struct {
	// Agent is the agent the core plays.
	Agent mission.Agent
	// Instructions are the system prompt: the agent's prompt file.
	Instructions string
	// Chat answers the core's requests (a cache in front of a client);
	// nil makes a core that can be described but not played.
	Chat model.Chatter
	// Model is the model asked for; "" leaves it to Chat.
	Model string
	// Temperature is sent when set; MaxSteps bounds the model calls of
	// one turn (0: model.DefaultMaxSteps); MaxTokens bounds an answer (0:
	// the endpoint's default).
	Temperature *float64
	MaxSteps    int
	MaxTokens   int
}

// Core is a model-backed agent core. It is safe for concurrent use: every
// turn runs its own conversation.
type Core struct {
	agent mission.Agent
	model string
	chat  model.Chatter
	loop  *model.Loop
	tools []model.Tool

	mu       sync.Mutex
	reported map[string]bool
}

var _ mission.Core = (*Core)(nil)

// New returns the core of cfg.Agent in the mission spec describes: its
// tools (the sandbox's tools the agent may call, with their argument
// schemas) and result schema come from the spec.
func New(spec *mission.Spec, cfg Config) (*Core, error) {
	as, ok := spec.Agent(cfg.Agent)
	if !ok {
		return nil, fmt.Errorf("model core: mission %s has no agent %q", spec.Name, cfg.Agent)
	}
	tools, err := Tools(spec, cfg.Agent)
	if err != nil {
		return nil, err
	}
	var result json.RawMessage
	if as.Result != nil {
		if result, err = json.Marshal(as.Result); err != nil {
			return nil, fmt.Errorf("model core %s: result schema: %w", cfg.Agent, err)
		}
	}
	loop, err := model.NewLoop(model.LoopConfig{
		Agent: string(cfg.Agent), Instructions: cfg.Instructions, Tools: tools, ResultSchema: result,
		MaxSteps: cfg.MaxSteps, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens,
	})
	if err != nil {
		return nil, fmt.Errorf("model core: %w", err)
	}
	return &Core{agent: cfg.Agent, model: cfg.Model, chat: cfg.Chat, loop: loop, tools: tools, reported: map[string]bool{}}, nil
}

// Tools returns the tool definitions agent is offered: the mission's tools
// it may call, in the registry's order, each with its description and the
// JSON Schema of its arguments.
func Tools(spec *mission.Spec, agent mission.Agent) ([]model.Tool, error) {
	var out []model.Tool
	for _, t := range spec.Tools.AgentTools(string(agent)) {
		params := json.RawMessage(`{"type":"object"}`)
		if t.Args != nil {
			raw, err := json.Marshal(t.Args)
			if err != nil {
				return nil, fmt.Errorf("model core %s: tool %s: %w", agent, t.Name, err)
			}
			params = raw
		}
		out = append(out, model.Tool{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}

// Hashes returns the hashes of the core's prompt, system message, tool
// definitions and result schema.
func (c *Core) Hashes() model.Hashes { return c.loop.Hashes() }

// Reported returns the model ids the endpoint reported in the answers the
// core has seen (from the cache or not), sorted.
func (c *Core) Reported() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.reported))
}

func (c *Core) report(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.reported[id] = true
	c.mu.Unlock()
}

// errNoChat is the error of a core built without a Chatter.
var errNoChat = errors.New("no endpoint to ask")

// Play runs the agent's conversation on the turn: see the package
// documentation. The error is non-nil only when the model could not be
// asked (the endpoint failed, an offline cache missed, ctx is done).
func (c *Core) Play(ctx context.Context, t *mission.Turn) (mission.Result, error) {
	if c.chat == nil {
		return nil, fmt.Errorf("model core %s: %w", c.agent, errNoChat)
	}
	input, err := json.Marshal(t.View())
	if err != nil {
		return nil, fmt.Errorf("model core %s: input: %w", c.agent, err)
	}
	chat := &turnChat{next: c.chat, model: c.model, core: c, turn: t, use: useFrom(ctx)}
	out, err := c.loop.Run(ctx, chat, input, int(int64(t.Seed())), func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		return callTool(t, name, args)
	})
	if err != nil {
		return nil, fmt.Errorf("model core %s %s: %w", c.agent, t.Item, err)
	}
	if out.Error != nil {
		t.Exception(out.Error.Tool, agentErrorReason(out.Error))
		return nil, nil
	}
	var res mission.Result
	if err := json.Unmarshal(out.Result, &res); err != nil || res == nil {
		t.Exception("", agentErrorReason(&model.AgentError{Kind: model.AgentInvalidResult, Step: len(out.Steps) - 1,
			Detail: "the final answer is not a JSON object"}))
		return nil, nil
	}
	return res, nil
}

// agentErrorReason is the trace's reason for an agent error.
func agentErrorReason(e *model.AgentError) string {
	return "agent_error " + string(e.Kind) + ": " + e.Detail
}

// callTool makes a model's tool call through the turn's tool box and
// returns the tool message: the result, or {"error": ...} with the
// sandbox's error.
func callTool(t *mission.Turn, name string, args json.RawMessage) (json.RawMessage, error) {
	var a sandbox.Args
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, model.Abort(fmt.Errorf("arguments: %w", err))
	}
	res, serr := t.Call(name, a)
	if serr != nil {
		return json.Marshal(map[string]any{"error": serr})
	}
	if res == nil {
		return json.RawMessage("{}"), nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, model.Abort(fmt.Errorf("tool %s: result: %w", name, err))
	}
	return raw, nil
}

// turnChat is the Chatter of one turn: it names the model and records each
// answer in the turn's trace as it arrives, before its tool calls run.
type turnChat struct {
	next  model.Chatter
	model string
	core  *Core
	turn  *mission.Turn
	use   *Use
}

func (tc *turnChat) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	if req.Model == "" {
		req.Model = tc.model
	}
	resp, err := tc.next.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	tc.core.report(resp.Model)
	tc.use.add(resp)
	decision, choice := "result", ""
	if len(resp.ToolCalls) > 0 {
		names := make([]string, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			names[i] = c.Name
		}
		decision, choice = "tool", strings.Join(names, ",")
	}
	tc.turn.ModelCall(decision, choice, int(resp.Usage.PromptTokens), int(resp.Usage.CompletionTokens))
	return resp, nil
}

// Bind returns a copy of c that asks chat: the same agent, instructions,
// tools and settings (so the same hashes), answered through another
// endpoint or cache. The copy reports the model ids of its own answers.
func (c *Core) Bind(chat model.Chatter) *Core {
	return &Core{agent: c.agent, model: c.model, chat: chat, loop: c.loop, tools: c.tools, reported: map[string]bool{}}
}

// Agent returns the agent the core plays; Model the model it asks for.
func (c *Core) Agent() mission.Agent { return c.agent }

// Model returns the model the core asks for.
func (c *Core) Model() string { return c.model }
