package model_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"

	"github.com/baton-lab/baton/model"
)

// A core runs an agent's loop through a cache in front of a client; here
// the endpoint is the scripted server, whose model calls one tool and
// answers.
func ExampleLoop() {
	player := model.Script{
		{ToolCalls: []model.ToolCall{{ID: "c1", Name: "lookup_po", Arguments: `{"po":"PO-7"}`}}},
		{Content: `{"decision":"approve"}`},
	}
	srv, _ := model.NewServer(map[string]model.Player{"scripted": player})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	client, err := model.NewClient(model.Config{BaseURL: hs.URL + "/v1", Model: "scripted"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	dir, _ := os.MkdirTemp("", "model-cache")
	defer os.RemoveAll(dir)
	store, _ := model.OpenDir(dir)
	cache, _ := model.NewCache(client, model.CacheOptions{}, store)

	loop, err := model.NewLoop(model.LoopConfig{
		Agent:        "action",
		Instructions: "Match the invoice against its purchase order.",
		Tools: []model.Tool{{Name: "lookup_po", Parameters: json.RawMessage(
			`{"type":"object","properties":{"po":{"type":"string"}},"required":["po"]}`)}},
		ResultSchema: json.RawMessage(`{"type":"object","properties":{"decision":{"enum":["approve","escalate"]}},"required":["decision"]}`),
		MaxSteps:     4,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	toolbox := func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		fmt.Printf("tool %s %s\n", name, args)
		return json.RawMessage(`{"po":"PO-7","total":120}`), nil
	}
	out, err := loop.Run(context.Background(), cache, json.RawMessage(`{"invoice":"INV-1"}`), 0, toolbox)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("result %s, %d steps, %d prompt tokens\n", out.Result, len(out.Steps), out.Usage.PromptTokens)
	fmt.Printf("%+v\n", cache.Stats())
	// Output:
	// tool lookup_po {"po":"PO-7"}
	// result {"decision":"approve"}, 2 steps, 332 prompt tokens
	// {Made:2 Served:0 Usage:{PromptTokens:332 CompletionTokens:56} MadeUsage:{PromptTokens:332 CompletionTokens:56}}
}

func ExampleRedactor() {
	r := model.NewRedactor("sk-live-0123456789abcdef")
	fmt.Println(r.String(`401: invalid key "sk-live-0123456789abcdef"; also sk-live-01…`))
	// Output:
	// 401: invalid key "[REDACTED]"; also [REDACTED]…
}
