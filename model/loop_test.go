package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// direct is a Chatter that asks a Player without HTTP and records the
// requests.
type direct struct {
	p    Player
	mu   sync.Mutex
	reqs []Request
}

func (d *direct) Chat(ctx context.Context, req Request) (Response, error) {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	return d.p.Play(ctx, req)
}

var lookupTool = Tool{
	Name: "lookup_po", Description: "look up a purchase order",
	Parameters: json.RawMessage(`{"type":"object","properties":{"po":{"type":"string","pattern":"^PO-[0-9]+$"}},"required":["po"],"additionalProperties":false}`),
}

var resultSchema = json.RawMessage(`{"type":"object","properties":{"decision":{"enum":["approve","escalate"]},"amount":{"type":"number"}},"required":["decision"]}`)

func newTestLoop(tb testing.TB, mod func(*LoopConfig)) *Loop {
	tb.Helper()
	cfg := LoopConfig{Agent: "action", Instructions: "Match the invoice.", Tools: []Tool{lookupTool}, ResultSchema: resultSchema, MaxSteps: 4}
	if mod != nil {
		mod(&cfg)
	}
	l, err := NewLoop(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func call(name, args string) ToolCall { return ToolCall{Name: name, Arguments: args} }

// poTool answers lookup_po; it records the arguments it got.
type poTool struct {
	mu   sync.Mutex
	args []string
}

func (p *poTool) call(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	p.args = append(p.args, string(args))
	p.mu.Unlock()
	if strings.Contains(string(args), "PO-404") {
		return nil, errors.New("purchase order not found")
	}
	return json.RawMessage(`{ "po": "PO-1", "total": 1200.0 }`), nil
}

func TestLoopRun(t *testing.T) {
	script := Script{
		{ToolCalls: []ToolCall{{ID: "a", Name: "lookup_po", Arguments: `{"po": "PO-1"}`}}, Usage: Usage{100, 10}, Model: "m-1"},
		{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-404"}`)}, Usage: Usage{150, 10}},
		{Content: "```json\n{\"amount\": 1200.0, \"decision\": \"approve\"}\n```", Usage: Usage{200, 20}},
	}
	// Through the HTTP server and client, as a core would run.
	srv, err := NewServer(map[string]Player{"scripted": script})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c := newTestClient(t, Config{BaseURL: hs.URL + "/v1", Model: "scripted"})
	tool := &poTool{}
	out, err := newTestLoop(t, nil).Run(background(), c, json.RawMessage(`{"invoice":"INV-9"}`), 3, tool.call)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(out)
	want := `{"result":{"amount":1200,"decision":"approve"},"steps":[` +
		`{"model":"scripted","usage":{"prompt_tokens":100,"completion_tokens":10},"finish_reason":"tool_calls","tool_calls":[{"id":"a","name":"lookup_po","args":{"po":"PO-1"},"result":{"po":"PO-1","total":1200}}]},` +
		`{"model":"scripted","usage":{"prompt_tokens":150,"completion_tokens":10},"finish_reason":"tool_calls","tool_calls":[{"id":"call_1_0","name":"lookup_po","args":{"po":"PO-404"},"error":"purchase order not found"}]},` +
		`{"model":"scripted","usage":{"prompt_tokens":200,"completion_tokens":20},"finish_reason":"stop","content":"` + "```json\\n{\\\"amount\\\": 1200.0, \\\"decision\\\": \\\"approve\\\"}\\n```" + `"}],` +
		`"usage":{"prompt_tokens":450,"completion_tokens":40}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"po":"PO-1"}`, `{"po":"PO-404"}`}, tool.args); diff != "" {
		t.Errorf("tool arguments (-want +got):\n%s", diff)
	}
}

func TestLoopConversation(t *testing.T) {
	d := &direct{p: Script{
		{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-404"}`)}},
		{Content: `{"decision":"escalate"}`},
	}}
	l := newTestLoop(t, nil)
	if _, err := l.Run(background(), d, json.RawMessage(`{"invoice":"INV-9"}`), 5, (&poTool{}).call); err != nil {
		t.Fatal(err)
	}
	last := d.reqs[1]
	want := []Message{
		{Role: RoleSystem, Content: "Match the invoice.\n\n" + resultHint + `{"properties":{"amount":{"type":"number"},"decision":{"enum":["approve","escalate"]}},"required":["decision"],"type":"object"}`},
		{Role: RoleUser, Content: `{"invoice":"INV-9"}`},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0_0", Name: "lookup_po", Arguments: `{"po":"PO-404"}`}}},
		{Role: RoleTool, ToolCallID: "call_0_0", Content: `{"error":"purchase order not found"}`},
	}
	if diff := cmp.Diff(want, last.Messages); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if last.Sample != 5 || last.Seed == nil || *last.Seed != 5 || len(last.Tools) != 1 {
		t.Errorf("request sample %d seed %v tools %d: want the sample as seed and the tools", last.Sample, last.Seed, len(last.Tools))
	}
	if l.System() != want[0].Content {
		t.Errorf("System() differs from the system message sent")
	}
}

func TestLoopAgentErrors(t *testing.T) {
	tests := []struct {
		name   string
		script Script
		want   AgentError
		calls  int // tool calls made
	}{
		{"arguments not JSON", Script{{ToolCalls: []ToolCall{call("lookup_po", `{"po": PO-1}`)}}},
			AgentError{Kind: AgentInvalidJSON, Step: 0, Tool: "lookup_po", Detail: "arguments are not JSON: invalid character 'P' looking for beginning of value"}, 0},
		{"unknown tool", Script{{ToolCalls: []ToolCall{call("pay_now", `{}`)}}},
			AgentError{Kind: AgentUnknownTool, Step: 0, Tool: "pay_now", Detail: `no tool "pay_now"; the tools are lookup_po`}, 0},
		{"arguments fail the schema", Script{{ToolCalls: []ToolCall{call("lookup_po", `{"po":"X","extra":1}`)}}},
			AgentError{Kind: AgentInvalidArguments, Step: 0, Tool: "lookup_po", Detail: "at /: additional properties 'extra' not allowed; at /po: 'X' does not match pattern '^PO-[0-9]+$'"}, 0},
		{"arguments not an object", Script{{ToolCalls: []ToolCall{call("lookup_po", `["PO-1"]`)}}},
			AgentError{Kind: AgentInvalidArguments, Step: 0, Tool: "lookup_po", Detail: "arguments must be a JSON object"}, 0},
		{"a bad call after a good one", Script{{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-1"}`), call("lookup_po", `{}`)}}},
			AgentError{Kind: AgentInvalidArguments, Step: 0, Tool: "lookup_po", Detail: "at /: missing property 'po'"}, 1},
		{"too many steps", Script{
			{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-1"}`)}}, {ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-2"}`)}},
			{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-3"}`)}}, {ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-4"}`)}}},
			AgentError{Kind: AgentTooManySteps, Step: 3, Detail: "no final answer within 4 model calls"}, 4},
		{"final answer not JSON", Script{{Content: "I approve this invoice."}},
			AgentError{Kind: AgentInvalidJSON, Step: 0, Detail: "final answer is not JSON: invalid character 'I' looking for beginning of value"}, 0},
		{"final answer with text around", Script{{Content: "Here: {\"decision\":\"approve\"}"}},
			AgentError{Kind: AgentInvalidJSON, Step: 0, Detail: "final answer is not JSON: invalid character 'H' looking for beginning of value"}, 0},
		{"cut final answer", Script{{Content: `{"decision":"appr`, FinishReason: "length"}},
			AgentError{Kind: AgentInvalidJSON, Step: 0, Detail: "final answer is not JSON: unexpected EOF (the answer was cut: finish_reason length)"}, 0},
		{"empty answer", Script{{}},
			AgentError{Kind: AgentInvalidJSON, Step: 0, Detail: "neither a tool call nor a final answer"}, 0},
		{"result fails the schema", Script{{Content: `{"decision":"pay","amount":"lots"}`}},
			AgentError{Kind: AgentInvalidResult, Step: 0, Detail: "at /amount: got string, want number; at /decision: value must be one of 'approve', 'escalate'"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &poTool{}
			out, err := newTestLoop(t, nil).Run(background(), &direct{p: tt.script}, json.RawMessage(`{}`), 0, tool.call)
			if err != nil {
				t.Fatalf("a model's mistake is a Go error: %v", err)
			}
			if out.OK() || out.Error == nil || out.Result != nil {
				t.Fatalf("outcome %+v: want an agent error and no result", out)
			}
			if diff := cmp.Diff(tt.want, *out.Error); diff != "" {
				t.Errorf("agent error (-want +got):\n%s", diff)
			}
			if len(tool.args) != tt.calls {
				t.Errorf("%d tool calls made, want %d", len(tool.args), tt.calls)
			}
			if len(out.Steps) != len(tt.script) {
				t.Errorf("%d steps recorded, want %d", len(out.Steps), len(tt.script))
			}
		})
	}
}

func TestLoopRepairs(t *testing.T) {
	d := &direct{p: Script{
		{ToolCalls: []ToolCall{call("lookup_po", `{"po":"nope"}`)}},
		{Content: `{"decision":"maybe"}`},
		{Content: `{"decision":"approve"}`},
	}}
	out, err := newTestLoop(t, func(c *LoopConfig) { c.MaxRepairs = 2 }).Run(background(), d, json.RawMessage(`{}`), 0, (&poTool{}).call)
	if err != nil || !out.OK() || string(out.Result) != `{"decision":"approve"}` {
		t.Fatalf("outcome %+v, %v: want the repaired answer", out, err)
	}
	kinds := []AgentErrorKind{}
	for _, e := range out.Repaired {
		kinds = append(kinds, e.Kind)
	}
	if diff := cmp.Diff([]AgentErrorKind{AgentInvalidArguments, AgentInvalidResult}, kinds); diff != "" {
		t.Errorf("repaired (-want +got):\n%s", diff)
	}
	msgs := d.reqs[2].Messages
	if got := msgs[3].Content; !strings.HasPrefix(got, `{"error":"rejected: at /po: 'nope' does not match pattern`) {
		t.Errorf("rejected call fed back as %q", got)
	}
	if got := msgs[len(msgs)-1]; got.Role != RoleUser || !strings.HasPrefix(got.Content, "Your reply was rejected: at /decision") {
		t.Errorf("rejected answer fed back as %+v", got)
	}
	// One repair fewer: the second mistake ends the run.
	out, _ = newTestLoop(t, func(c *LoopConfig) { c.MaxRepairs = 1 }).Run(background(), &direct{p: d.p}, json.RawMessage(`{}`), 0, (&poTool{}).call)
	if out.Error == nil || out.Error.Kind != AgentInvalidResult || len(out.Repaired) != 1 {
		t.Errorf("outcome %+v: want the second mistake to end the run", out)
	}
}

func TestLoopStops(t *testing.T) {
	script := Script{{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-1"}`)}}, {Content: `{"decision":"approve"}`}}
	t.Run("a tool aborts", func(t *testing.T) {
		boom := errors.New("sandbox broke")
		out, err := newTestLoop(t, nil).Run(background(), &direct{p: script}, json.RawMessage(`{}`), 0,
			func(context.Context, string, json.RawMessage) (json.RawMessage, error) { return nil, Abort(boom) })
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "agent action: step 0: tool lookup_po: sandbox broke") || len(out.Steps) != 1 {
			t.Errorf("err = %v, %d steps; want the abort with the step kept", err, len(out.Steps))
		}
	})
	t.Run("the endpoint fails", func(t *testing.T) {
		failing := &direct{p: PlayerFunc(func(_ context.Context, req Request) (Response, error) {
			if len(req.Messages) > 2 {
				return Response{}, ErrServer
			}
			return script[0], nil
		})}
		out, err := newTestLoop(t, nil).Run(background(), failing, json.RawMessage(`{}`), 0, (&poTool{}).call)
		if !errors.Is(err, ErrServer) || len(out.Steps) != 1 || out.Error != nil {
			t.Errorf("err = %v, outcome %+v: want a Go error and the first step kept", err, out)
		}
	})
	t.Run("a tool result is not JSON", func(t *testing.T) {
		_, err := newTestLoop(t, nil).Run(background(), &direct{p: script}, json.RawMessage(`{}`), 0,
			func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage("{oops"), nil
			})
		if err == nil || !strings.Contains(err.Error(), "tool lookup_po: result") {
			t.Errorf("err = %v, want the tool box's bad result named", err)
		}
	})
	t.Run("input not JSON", func(t *testing.T) {
		if _, err := newTestLoop(t, nil).Run(background(), &direct{p: script}, json.RawMessage(`{`), 0, nil); err == nil {
			t.Errorf("bad input accepted")
		}
	})
}

// TestLoopReplayIsByteStable: a run answered live and filled into a
// cache, then replayed offline from the cache, gives the same bytes.
func TestLoopReplayIsByteStable(t *testing.T) {
	script := Script{
		{ToolCalls: []ToolCall{call("lookup_po", `{"po":"PO-1"}`)}, Usage: Usage{5, 1}},
		{Content: `{"decision":"approve","amount":12.50}`, Usage: Usage{9, 3}},
	}
	store := openDir(t, t.TempDir())
	l := newTestLoop(t, nil)
	run := func(c Chatter) []byte {
		out, err := l.Run(background(), c, json.RawMessage(`{"invoice":"INV-1"}`), 2, (&poTool{}).call)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(out)
		return raw
	}
	live, _ := NewCache(&direct{p: script}, CacheOptions{Model: "m"}, store)
	first := run(live)
	offline, _ := NewCache(nil, CacheOptions{Model: "m"}, store)
	if second := run(offline); string(first) != string(second) {
		t.Errorf("replay differs:\nlive   %s\nreplay %s", first, second)
	}
	if s := offline.Stats(); s.Made != 0 || s.Served != 2 {
		t.Errorf("offline stats %+v: want two answers served", s)
	}
}

func TestNewLoopErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*LoopConfig)
		want string
	}{
		{"bad tool name", func(c *LoopConfig) { c.Tools = []Tool{{Name: "look up"}} }, `tool "look up": a name is 1 to 64 letters`},
		{"tool twice", func(c *LoopConfig) { c.Tools = []Tool{lookupTool, lookupTool} }, `tool "lookup_po" defined twice`},
		{"tool schema not JSON", func(c *LoopConfig) { c.Tools = []Tool{{Name: "t", Parameters: []byte("{")}} }, "tool t: parameters: not JSON"},
		{"schema with a bad keyword", func(c *LoopConfig) { c.ResultSchema = []byte(`{"type":"thing"}`) }, "result schema:"},
		{"external $ref", func(c *LoopConfig) { c.ResultSchema = []byte(`{"$ref":"https://example.com/s.json"}`) }, "schemas must be self-contained"},
		{"negative steps", func(c *LoopConfig) { c.MaxSteps = -1 }, "must not be negative"},
		{"huge schema", func(c *LoopConfig) {
			c.ResultSchema = []byte(`{"description":"` + strings.Repeat("x", maxSchemaBytes) + `"}`)
		}, "more than the 1048576 allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := LoopConfig{Agent: "a", Tools: []Tool{lookupTool}}
			tt.mod(&cfg)
			_, err := NewLoop(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestLoopHashes(t *testing.T) {
	a := newTestLoop(t, nil).Hashes()
	b := newTestLoop(t, func(c *LoopConfig) {
		c.ResultSchema = json.RawMessage(`{ "required": ["decision"], "type": "object", "properties": {"amount":{"type":"number"},"decision":{"enum":["approve","escalate"]}}}`)
	}).Hashes()
	if a != b {
		t.Errorf("a reordered result schema changes the hashes: %+v vs %+v", a, b)
	}
	c := newTestLoop(t, func(c *LoopConfig) { c.Instructions += " Be careful." }).Hashes()
	if c.Prompt == a.Prompt || c.System == a.System || c.Tools != a.Tools {
		t.Errorf("changed instructions: %+v vs %+v", a, c)
	}
	if a.Prompt != HashText([]byte("Match the invoice.")) {
		t.Errorf("prompt hash is not the hash of the prompt text")
	}
	for _, h := range []string{a.Prompt, a.System, a.Tools, a.ResultSchema} {
		if len(h) != 64 {
			t.Errorf("hash %q", h)
		}
	}
	_ = fmt.Sprint
}
