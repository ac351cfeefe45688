package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Wire format.
type (
	wireRequest struct {
		Model       string        `json:"model"`
		Messages    []wireMessage `json:"messages"`
		Tools       []wireTool    `json:"tools,omitempty"`
		Temperature *float64      `json:"temperature,omitempty"`
	}
	wireMessage struct {
		Role       string         `json:"role"`
		Content    *string        `json:"content"`
		ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	wireToolCall struct {
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description,omitempty"`
			Parameters  map[string]any `json:"parameters,omitempty"`
		} `json:"function"`
	}
	wireResponse struct {
		Choices []struct {
			Message struct {
				Content   json.RawMessage `json:"content"`
				ToolCalls []wireToolCall  `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
)

func (c *Client) encode(req ChatRequest) ([]byte, error) {
	w := wireRequest{Model: c.cfg.Model, Temperature: req.Temperature}
	for _, m := range req.Messages {
		wm := wireMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			wm.Content = &m.Content
		}
		for _, tc := range m.ToolCalls {
			args := tc.Args
			if args == nil {
				args = map[string]any{}
			}
			raw, err := json.Marshal(args)
			if err != nil {
				return nil, fmt.Errorf("tool call %s: arguments: %w", tc.Name, err)
			}
			s, _ := json.Marshal(string(raw)) // arguments travel as a JSON string
			var wt wireToolCall
			wt.ID, wt.Type = tc.ID, "function"
			wt.Function.Name, wt.Function.Arguments = tc.Name, s
			wm.ToolCalls = append(wm.ToolCalls, wt)
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, t := range req.Tools {
		var wt wireTool
		wt.Type = "function"
		wt.Function.Name, wt.Function.Description, wt.Function.Parameters = t.Name, t.Description, t.Parameters
		w.Tools = append(w.Tools, wt)
	}
	return json.Marshal(w)
}

func decodeResponse(raw []byte) (ChatResponse, error) {
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return ChatResponse{}, fmt.Errorf("decode response: %w", err)
	}
	if len(w.Choices) == 0 {
		return ChatResponse{}, ErrNoChoices
	}
	ch := w.Choices[0]
	out := ChatResponse{FinishReason: ch.FinishReason}
	content, err := decodeContent(ch.Message.Content)
	if err != nil {
		return ChatResponse{}, fmt.Errorf("decode response: choices[0].message.content: %w", err)
	}
	out.Content = content
	for i, tc := range ch.Message.ToolCalls {
		args, err := decodeArguments(tc.Function.Arguments)
		if err != nil {
			return ChatResponse{}, fmt.Errorf("decode response: choices[0].message.tool_calls[%d].function.arguments: %w", i, err)
		}
		if tc.Function.Name == "" {
			return ChatResponse{}, fmt.Errorf("decode response: choices[0].message.tool_calls[%d].function.name: %w", i, ErrNoName)
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: args})
	}
	return out, nil
}

// decodeContent accepts a string, null, or a list of content parts whose
// text parts are joined.
func decodeContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '[' {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// decodeArguments accepts the arguments as a JSON string holding an object
// (the OpenAI format), as an object, or empty/null.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		raw = []byte(s)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("want a JSON object: %w", err)
	}
	return args, nil
}
