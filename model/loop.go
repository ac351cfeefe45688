package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Limits of [LoopConfig].
const (
	DefaultMaxSteps = 8
	maxSchemaBytes  = 1 << 20
)

// resultHint introduces the result schema in the system message.
const resultHint = "When you have finished, reply with only a JSON value that satisfies this JSON Schema, with no text around it:\n"

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// LoopConfig defines an agent's tool-calling loop.
type LoopConfig struct {
	// Agent names the agent in errors.
	Agent string
	// Instructions is the system prompt: the agent's prompt file.
	Instructions string
	// Tools are the functions the model may call, each with the JSON
	// Schema of its arguments.
	Tools []Tool
	// ResultSchema is the JSON Schema of the final answer; nil accepts
	// any JSON value.
	ResultSchema json.RawMessage
	// OmitResultSchema leaves the result schema out of the system
	// message (by default it follows the instructions, after resultHint).
	OmitResultSchema bool
	// MaxSteps bounds the model calls of one run (0: DefaultMaxSteps).
	// Tool calls of the last call are still carried out; the run then
	// ends with AgentTooManySteps.
	MaxSteps int
	// MaxRepairs is how many malformed outputs (bad tool calls, bad
	// final answers) are fed back to the model as errors for it to
	// correct before the run ends with the agent error. 0: the first one
	// ends it.
	MaxRepairs  int
	Temperature *float64
	MaxTokens   int
	ToolChoice  ToolChoice
}

// Loop runs an agent: a bounded conversation in which a model calls tools
// and ends with a final answer. It is compiled once ([NewLoop]) and run
// any number of times, concurrently.
type Loop struct {
	cfg    LoopConfig
	system string
	schema map[string]*jsonschema.Schema // by tool name; nil: any object
	result *jsonschema.Schema
	names  []string // tool names, sorted
	hashes Hashes
}

// ToolFunc carries out a tool call whose arguments passed the tool's
// schema; args is their canonical JSON. Its result goes back to the model
// as the tool message; an error goes back as {"error": "..."}, unless it
// was made with [Abort] (or the context is done), which ends the run with
// that error.
type ToolFunc func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)

// Abort wraps err so that a [ToolFunc] returning it stops the loop with
// err instead of feeding it to the model.
func Abort(err error) error { return &abortError{err} }

type abortError struct{ err error }

func (e *abortError) Error() string { return e.err.Error() }
func (e *abortError) Unwrap() error { return e.err }

// NewLoop checks and compiles cfg's schemas.
func NewLoop(cfg LoopConfig) (*Loop, error) {
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.MaxSteps < 0 || cfg.MaxRepairs < 0 {
		return nil, fmt.Errorf("loop %s: max steps %d and max repairs %d must not be negative", cfg.Agent, cfg.MaxSteps, cfg.MaxRepairs)
	}
	l := &Loop{cfg: cfg, schema: map[string]*jsonschema.Schema{}}
	for _, t := range cfg.Tools {
		if !toolName.MatchString(t.Name) {
			return nil, fmt.Errorf("loop %s: tool %q: a name is 1 to 64 letters, digits, _ or -", cfg.Agent, t.Name)
		}
		if _, dup := l.schema[t.Name]; dup {
			return nil, fmt.Errorf("loop %s: tool %q defined twice", cfg.Agent, t.Name)
		}
		s, err := compileSchema("tools/"+t.Name, t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("loop %s: tool %s: parameters: %w", cfg.Agent, t.Name, err)
		}
		l.schema[t.Name] = s
		l.names = append(l.names, t.Name)
	}
	slices.Sort(l.names)
	var err error
	if l.result, err = compileSchema("result", cfg.ResultSchema); err != nil {
		return nil, fmt.Errorf("loop %s: result schema: %w", cfg.Agent, err)
	}
	l.system = cfg.Instructions
	if len(cfg.ResultSchema) > 0 && !cfg.OmitResultSchema {
		canon, _ := Canonical(cfg.ResultSchema) // compiled, so valid
		l.system = strings.TrimRight(l.system, "\n") + "\n\n" + resultHint + string(canon)
	}
	if l.hashes, err = hashLoop(cfg, l.system); err != nil {
		return nil, fmt.Errorf("loop %s: %w", cfg.Agent, err)
	}
	return l, nil
}

// compileSchema compiles a JSON Schema (draft 2020-12 unless it says
// otherwise); nil raw means no schema. It loads no other document.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("%d bytes, more than the %d allowed", len(raw), maxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// noLoader refuses every external $ref: a schema is one document.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: schemas must be self-contained", url)
}

// System returns the system message the loop sends.
func (l *Loop) System() string { return l.system }

// Hashes returns the hashes of the loop's definitions, for provenance.
func (l *Loop) Hashes() Hashes { return l.hashes }

// Outcome is one run of a [Loop]. Everything in it comes from the
// model's answers and the tools' results, so a run answered from a cache
// has the same Outcome, byte for byte, as the run that filled it.
type Outcome struct {
	// Result is the final answer, canonical JSON; nil when Error is set.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the agent error that ended the run; nil on success.
	Error *AgentError `json:"error,omitempty"`
	// Repaired are the malformed outputs fed back to the model before
	// it recovered or ran out of repairs.
	Repaired []*AgentError `json:"repaired,omitempty"`
	// Steps is the transcript: one step per model call.
	Steps []Step `json:"steps"`
	// Usage is the tokens of all steps.
	Usage Usage `json:"usage"`
}

// OK reports whether the run ended with a valid final answer.
func (o *Outcome) OK() bool { return o.Error == nil && o.Result != nil }

// Step is one model call of a run and what came of it.
type Step struct {
	Model        string    `json:"model,omitempty"` // the model id the endpoint reported
	Usage        Usage     `json:"usage"`
	FinishReason string    `json:"finish_reason,omitempty"`
	Content      string    `json:"content,omitempty"`
	ToolCalls    []ToolUse `json:"tool_calls,omitempty"`
	// Cached is true when the answer came from a cache; not recorded.
	Cached bool `json:"-"`
}

// ToolUse is one tool call of a step.
type ToolUse struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`     // canonical, when the arguments are JSON
	Raw  string          `json:"raw_args,omitempty"` // the arguments as written, when they are not
	// Result or Error is what the tool returned; neither when the call
	// was Rejected (not made).
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Rejected *AgentError     `json:"rejected,omitempty"`
}

// run is the state of one run.
type run struct {
	l      *Loop
	chat   Chatter
	call   ToolFunc
	req    Request
	out    *Outcome
	sample int64
}

// Run runs the loop on input (the agent's JSON input, sent as the user
// message) for the trial's sample index: each request carries the sample
// as its Seed and its Sample. A mistake of the model ends the run with an
// [AgentError] in the Outcome and a nil error; the error is non-nil only
// when the run could not go on (the endpoint failed, the cache is offline
// and misses, the context is done, a tool aborted), and the Outcome then
// holds the steps so far.
func (l *Loop) Run(ctx context.Context, chat Chatter, input json.RawMessage, sample int, call ToolFunc) (*Outcome, error) {
	if !json.Valid(input) {
		return &Outcome{}, fmt.Errorf("agent %s: input is not JSON", l.cfg.Agent)
	}
	r := &run{l: l, chat: chat, call: call, out: &Outcome{Steps: []Step{}}, sample: int64(sample)}
	r.req = Request{
		Messages:    []Message{{Role: RoleSystem, Content: l.system}, {Role: RoleUser, Content: string(input)}},
		Tools:       l.cfg.Tools,
		ToolChoice:  l.cfg.ToolChoice,
		Temperature: l.cfg.Temperature,
		MaxTokens:   l.cfg.MaxTokens,
		Seed:        &r.sample,
		Sample:      sample,
	}
	for step := range l.cfg.MaxSteps {
		done, err := r.step(ctx, step)
		if err != nil {
			return r.out, fmt.Errorf("agent %s: step %d: %w", l.cfg.Agent, step, err)
		}
		if done {
			return r.out, nil
		}
	}
	r.out.Error = &AgentError{Kind: AgentTooManySteps, Step: l.cfg.MaxSteps - 1,
		Detail: fmt.Sprintf("no final answer within %d model calls", l.cfg.MaxSteps)}
	return r.out, nil
}

// step makes one model call and acts on the answer; done is true when
// the run has ended (with a result or an agent error).
func (r *run) step(ctx context.Context, step int) (done bool, err error) {
	resp, err := r.chat.Chat(ctx, r.req)
	if err != nil {
		return false, err
	}
	st := Step{Model: resp.Model, Usage: resp.Usage, FinishReason: resp.FinishReason, Content: resp.Content, Cached: resp.Cached}
	r.out.Usage = r.out.Usage.Add(resp.Usage)
	if len(resp.ToolCalls) == 0 {
		r.out.Steps = append(r.out.Steps, st)
		result, aerr := r.l.final(resp, step)
		if aerr == nil {
			r.out.Result = result
			return true, nil
		}
		if !r.repair(aerr) {
			return true, nil
		}
		r.req.Messages = append(r.req.Messages,
			Message{Role: RoleAssistant, Content: resp.Content},
			Message{Role: RoleUser, Content: "Your reply was rejected: " + aerr.Detail + ". Reply again with only the JSON result."})
		return false, nil
	}
	assistant := Message{Role: RoleAssistant, Content: resp.Content}
	for i, tc := range resp.ToolCalls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", step, i)
		}
		assistant.ToolCalls = append(assistant.ToolCalls, tc)
	}
	r.req.Messages = append(r.req.Messages, assistant)
	defer func() { r.out.Steps = append(r.out.Steps, st) }()
	for _, tc := range assistant.ToolCalls {
		use, reply, ended, err := r.use(ctx, tc, step)
		st.ToolCalls = append(st.ToolCalls, use)
		if err != nil || ended {
			return ended, err
		}
		r.req.Messages = append(r.req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Content: reply})
	}
	return false, nil
}

// use checks and makes one tool call; reply is the tool message's
// content; ended is true when a rejected call ends the run.
func (r *run) use(ctx context.Context, tc ToolCall, step int) (use ToolUse, reply string, ended bool, err error) {
	use = ToolUse{ID: tc.ID, Name: tc.Name}
	args, aerr := r.l.checkCall(tc, step)
	if aerr != nil {
		use.Rejected = aerr
		if aerr.Kind == AgentInvalidJSON {
			use.Raw = tc.Arguments
		} else {
			use.Args = args
		}
		if !r.repair(aerr) {
			return use, "", true, nil
		}
		return use, errorJSON("rejected: " + aerr.Detail), false, nil
	}
	use.Args = args
	result, err := r.call(ctx, tc.Name, args)
	var abort *abortError
	switch {
	case errors.As(err, &abort):
		return use, "", false, fmt.Errorf("tool %s: %w", tc.Name, abort.err)
	case ctx.Err() != nil:
		return use, "", false, ctx.Err()
	case err != nil:
		use.Error = err.Error()
		return use, errorJSON(use.Error), false, nil
	}
	if len(bytes.TrimSpace(result)) == 0 {
		result = json.RawMessage("null")
	}
	canon, cerr := Canonical(result)
	if cerr != nil {
		return use, "", false, fmt.Errorf("tool %s: result: %w", tc.Name, cerr)
	}
	use.Result = canon
	return use, string(canon), false, nil
}

// repair records aerr and reports whether the model may correct it; when
// it may not, aerr ends the run.
func (r *run) repair(aerr *AgentError) bool {
	if len(r.out.Repaired) < r.l.cfg.MaxRepairs {
		r.out.Repaired = append(r.out.Repaired, aerr)
		return true
	}
	r.out.Error = aerr
	return false
}

func errorJSON(msg string) string {
	raw, _ := marshal(map[string]string{"error": msg})
	return string(raw)
}

// checkCall checks a tool call: a known tool, JSON object arguments that
// pass its schema. It returns the canonical arguments.
func (l *Loop) checkCall(tc ToolCall, step int) (json.RawMessage, *AgentError) {
	schema, ok := l.schema[tc.Name]
	if !ok {
		return nil, &AgentError{Kind: AgentUnknownTool, Step: step, Tool: tc.Name,
			Detail: fmt.Sprintf("no tool %q; the tools are %s", clipText(tc.Name, 64), strings.Join(l.names, ", "))}
	}
	text := strings.TrimSpace(tc.Arguments)
	if text == "" {
		text = "{}"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, &AgentError{Kind: AgentInvalidJSON, Step: step, Tool: tc.Name, Detail: "arguments are not JSON: " + err.Error()}
	}
	args, err := appendCanonical(nil, v)
	if err != nil {
		return nil, &AgentError{Kind: AgentInvalidJSON, Step: step, Tool: tc.Name, Detail: "arguments: " + err.Error()}
	}
	if _, obj := v.(map[string]any); !obj {
		return args, &AgentError{Kind: AgentInvalidArguments, Step: step, Tool: tc.Name, Detail: "arguments must be a JSON object"}
	}
	if schema != nil {
		if err := schema.Validate(v); err != nil {
			return args, &AgentError{Kind: AgentInvalidArguments, Step: step, Tool: tc.Name, Detail: schemaDetail(err)}
		}
	}
	return args, nil
}

// final checks a final answer: JSON (alone, or alone in one ``` fence)
// that passes the result schema. It returns the canonical answer.
func (l *Loop) final(resp Response, step int) (json.RawMessage, *AgentError) {
	text := unfence(strings.TrimSpace(resp.Content))
	if text == "" {
		return nil, &AgentError{Kind: AgentInvalidJSON, Step: step, Detail: "neither a tool call nor a final answer" + finishNote(resp)}
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, &AgentError{Kind: AgentInvalidJSON, Step: step, Detail: "final answer is not JSON: " + err.Error() + finishNote(resp)}
	}
	result, err := appendCanonical(nil, v)
	if err != nil {
		return nil, &AgentError{Kind: AgentInvalidJSON, Step: step, Detail: "final answer: " + err.Error()}
	}
	if l.result != nil {
		if err := l.result.Validate(v); err != nil {
			return nil, &AgentError{Kind: AgentInvalidResult, Step: step, Detail: schemaDetail(err)}
		}
	}
	return result, nil
}

func finishNote(resp Response) string {
	if resp.FinishReason == "length" {
		return " (the answer was cut: finish_reason length)"
	}
	return ""
}

// unfence returns the text inside a ``` fence (with or without a
// language tag) when s is exactly one fenced block, else s.
func unfence(s string) string {
	rest, ok := strings.CutPrefix(s, "```")
	if !ok || !strings.HasSuffix(rest, "```") || len(rest) < 3 {
		return s
	}
	rest = rest[:len(rest)-3]
	if strings.Contains(rest, "```") {
		return s
	}
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[\"") {
		rest = rest[nl+1:]
	}
	return strings.TrimSpace(rest)
}

// schemaDetail is a validation error as one line: its failures, sorted.
func schemaDetail(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var lines []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		at := u.InstanceLocation
		if at == "" {
			at = "/"
		}
		lines = append(lines, fmt.Sprintf("at %s: %s", at, u.Error))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) == 0 {
		return "fails the schema"
	}
	return clipText(strings.Join(lines, "; "), 500)
}

// clipText cuts s to about n bytes.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
