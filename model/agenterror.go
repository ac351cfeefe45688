package model

import "fmt"

// AgentErrorKind classifies what a model did wrong.
type AgentErrorKind string

// The agent error kinds.
const (
	// AgentInvalidJSON: a tool call's arguments or the final answer are
	// not JSON (or there is neither a tool call nor an answer).
	AgentInvalidJSON AgentErrorKind = "invalid_json"
	// AgentUnknownTool: the model called a tool it was not offered.
	AgentUnknownTool AgentErrorKind = "unknown_tool"
	// AgentInvalidArguments: a tool call's arguments fail the tool's schema.
	AgentInvalidArguments AgentErrorKind = "invalid_arguments"
	// AgentTooManySteps: no final answer within the loop's steps.
	AgentTooManySteps AgentErrorKind = "too_many_steps"
	// AgentInvalidResult: the final answer fails the result schema.
	AgentInvalidResult AgentErrorKind = "invalid_result"
)

// AllAgentErrorKinds lists every agent error kind.
var AllAgentErrorKinds = []AgentErrorKind{AgentInvalidJSON, AgentUnknownTool, AgentInvalidArguments, AgentTooManySteps, AgentInvalidResult}

// String returns the kind's name.
func (k AgentErrorKind) String() string { return string(k) }

// AgentError is a mistake of the model, recorded in the [Outcome]: the
// agent's result is this error, which a design scores like any other
// result. It is never a Go error that stops a sweep.
type AgentError struct {
	Kind   AgentErrorKind `json:"kind"`
	Step   int            `json:"step"`           // the model call, from 0
	Tool   string         `json:"tool,omitempty"` // the tool called, for tool-call errors
	Detail string         `json:"detail"`
}

func (e *AgentError) Error() string {
	if e.Tool != "" {
		return fmt.Sprintf("%s at step %d (tool %s): %s", e.Kind, e.Step, e.Tool, e.Detail)
	}
	return fmt.Sprintf("%s at step %d: %s", e.Kind, e.Step, e.Detail)
}
