package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The OpenAI chat-completions wire format, both ways: the client encodes
// requests and decodes responses, the [Server] the reverse.
type (
	wireRequest struct {
		Model       string          `json:"model"`
		Messages    []wireMessage   `json:"messages"`
		Tools       []wireTool      `json:"tools,omitempty"`
		ToolChoice  json.RawMessage `json:"tool_choice,omitempty"`
		Temperature *float64        `json:"temperature,omitempty"`
		MaxTokens   int             `json:"max_tokens,omitempty"`
		Seed        *int64          `json:"seed,omitempty"`
	}
	wireMessage struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []wireToolCall  `json:"tool_calls,omitempty"`
		ToolCallID string          `json:"tool_call_id,omitempty"`
	}
	wireToolCall struct {
		ID       string       `json:"id,omitempty"`
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	wireTool struct {
		Type     string      `json:"type"`
		Function wireToolDef `json:"function"`
	}
	wireToolDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	wireResponse struct {
		ID      string       `json:"id,omitempty"`
		Object  string       `json:"object,omitempty"`
		Created int64        `json:"created"`
		Model   string       `json:"model"`
		Choices []wireChoice `json:"choices"`
		Usage   *wireUsage   `json:"usage,omitempty"`
	}
	wireChoice struct {
		Index        int         `json:"index"`
		Message      wireMessage `json:"message"`
		FinishReason string      `json:"finish_reason,omitempty"`
	}
	wireUsage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
)

var jsonNull = json.RawMessage("null")

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	raw, _ := marshal(s) // a string always encodes
	return raw
}

// encodeRequest writes req as a chat-completions request body.
func encodeRequest(req Request) ([]byte, error) {
	w := wireRequest{
		Model: req.Model, Temperature: req.Temperature, MaxTokens: req.MaxTokens, Seed: req.Seed,
		Messages: make([]wireMessage, 0, len(req.Messages)),
	}
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, toWireMessage(m))
	}
	for _, t := range req.Tools {
		if len(t.Parameters) > 0 && !json.Valid(t.Parameters) {
			return nil, fmt.Errorf("encode request: tool %q: parameters are not JSON", t.Name)
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireToolDef(t)})
	}
	switch req.ToolChoice {
	case ToolChoiceDefault:
	case ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired:
		w.ToolChoice = jsonString(string(req.ToolChoice))
	default:
		w.ToolChoice, _ = marshal(map[string]any{"type": "function", "function": map[string]string{"name": string(req.ToolChoice)}})
	}
	return marshal(w)
}

// toWireMessage encodes m; tool-call arguments travel as a JSON string.
func toWireMessage(m Message) wireMessage {
	wm := wireMessage{Role: string(m.Role), ToolCallID: m.ToolCallID, Content: jsonNull}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		wm.Content = jsonString(m.Content)
	}
	for _, tc := range m.ToolCalls {
		args := tc.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		wm.ToolCalls = append(wm.ToolCalls, wireToolCall{
			ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: jsonString(args)},
		})
	}
	return wm
}

// errNoChoices is a response without an answer.
var errNoChoices = errors.New("response has no choices")

// decodeResponse reads a chat-completions response body.
func decodeResponse(raw []byte) (Response, error) {
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return Response{}, fmt.Errorf("decode response: %w", err)
	}
	if len(w.Choices) == 0 {
		return Response{}, errNoChoices
	}
	ch := w.Choices[0]
	msg, err := fromWireMessage(ch.Message, "choices[0].message")
	if err != nil {
		return Response{}, fmt.Errorf("decode response: %w", err)
	}
	out := Response{Content: msg.Content, ToolCalls: msg.ToolCalls, FinishReason: ch.FinishReason, Model: w.Model}
	if w.Usage != nil {
		out.Usage = Usage{PromptTokens: w.Usage.PromptTokens, CompletionTokens: w.Usage.CompletionTokens}
	}
	return out, nil
}

// fromWireMessage decodes a message of a request or response; at names it
// in errors.
func fromWireMessage(wm wireMessage, at string) (Message, error) {
	content, err := decodeContent(wm.Content)
	if err != nil {
		return Message{}, fmt.Errorf("%s.content: %w", at, err)
	}
	m := Message{Role: Role(wm.Role), Content: content, ToolCallID: wm.ToolCallID}
	for i, tc := range wm.ToolCalls {
		args, err := decodeArguments(tc.Function.Arguments)
		if err != nil {
			return Message{}, fmt.Errorf("%s.tool_calls[%d].function.arguments: %w", at, i, err)
		}
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return m, nil
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

// decodeArguments returns the text of a call's arguments: the content of
// a JSON string (OpenAI), or the raw text of any other JSON value (an
// object, from servers that send one); "" for null or absent.
func decodeArguments(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	return string(raw), nil
}

// decodeRequest reads a chat-completions request body (the server side).
func decodeRequest(raw []byte) (Request, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&w); err != nil {
		return Request{}, fmt.Errorf("decode request: %w", err)
	}
	req := Request{Model: w.Model, Temperature: w.Temperature, MaxTokens: w.MaxTokens, Seed: w.Seed}
	for i, wm := range w.Messages {
		m, err := fromWireMessage(wm, fmt.Sprintf("messages[%d]", i))
		if err != nil {
			return Request{}, fmt.Errorf("decode request: %w", err)
		}
		req.Messages = append(req.Messages, m)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	choice, err := decodeToolChoice(w.ToolChoice)
	if err != nil {
		return Request{}, fmt.Errorf("decode request: tool_choice: %w", err)
	}
	req.ToolChoice = choice
	return req, nil
}

func decodeToolChoice(raw json.RawMessage) (ToolChoice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ToolChoiceDefault, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		return ToolChoice(mode), nil
	}
	var fn struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &fn); err != nil || fn.Function.Name == "" {
		return "", errors.New(`want "auto", "none", "required" or {"type":"function","function":{"name":...}}`)
	}
	return ToolChoice(fn.Function.Name), nil
}

// encodeResponse writes resp as a chat-completions response body with the
// given id and model (the server side).
func encodeResponse(id, model string, resp Response) ([]byte, error) {
	msg := toWireMessage(Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
	finish := resp.FinishReason
	if finish == "" {
		finish = "stop"
		if len(resp.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	u := resp.Usage
	return marshal(wireResponse{
		ID: id, Object: "chat.completion", Model: model,
		Choices: []wireChoice{{Message: msg, FinishReason: finish}},
		Usage:   &wireUsage{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens},
	})
}
