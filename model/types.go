package model

import (
	"context"
	"encoding/json"
)

// Role is the author of a chat message.
type Role string

// The chat roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// AllRoles lists every role.
var AllRoles = []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool}

// String returns the role's wire name.
func (r Role) String() string { return string(r) }

// Message is one chat message.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant messages that call tools
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool messages: the call answered
}

// ToolCall is a function call the model asked for. Arguments is the text
// the model wrote: on the wire either a JSON string holding it (OpenAI) or
// a JSON object (some servers); both arrive here as the object's text. It
// is not checked: a model may write anything, and [Loop] decides.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function the model may call. Parameters is the JSON Schema of
// its arguments (an object schema); nil means no arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolChoice says whether the model must, may or must not call a tool:
// "" leaves the endpoint's default, [ToolChoiceAuto], [ToolChoiceNone] and
// [ToolChoiceRequired] are OpenAI's modes, and any other value names the one
// function the model must call.
type ToolChoice string

// The tool-choice modes.
const (
	ToolChoiceDefault  ToolChoice = ""
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceNone     ToolChoice = "none"
	ToolChoiceRequired ToolChoice = "required"
)

// Request is one chat-completions request.
type Request struct {
	// Model names the model; "" means the client's (or cache's) model.
	Model       string
	Messages    []Message
	Tools       []Tool
	ToolChoice  ToolChoice
	Temperature *float64 // nil: the endpoint's default
	MaxTokens   int      // 0: the endpoint's default
	// Seed is sent as the request's "seed" (nil: not sent). [Loop] sets it
	// to the trial's sample index; [Server] hands it to the [Player].
	Seed *int64
	// Sample is the trial's sample index. It is never sent; it is part of
	// the cache key, so that the samples of one request are distinct
	// answers even from an endpoint that ignores the seed.
	Sample int
}

// Usage is what an answer cost, as the endpoint reports it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens}
}

// Response is the first choice of a chat-completions answer.
type Response struct {
	Content      string     `json:"content,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	Usage        Usage      `json:"usage"`
	// Model is the model id the endpoint reports (may differ from the one
	// asked for: a gateway's alias, a dated snapshot).
	Model string `json:"model,omitempty"`
	// Cached is true when a [Cache] served the answer without calling the
	// endpoint. It is not part of any stored or byte-stable record.
	Cached bool `json:"-"`
}

// Chatter sends one chat-completions request and returns the answer.
// [*Client] and [*Cache] implement it, and so may a test double.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

var (
	_ Chatter = (*Client)(nil)
	_ Chatter = (*Cache)(nil)
)
