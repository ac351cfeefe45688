package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/baton-lab/baton/model"
)

// TestModelServe starts `baton model serve`, talks to it and stops it as
// Ctrl-C would.
func TestModelServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"model", "serve", "-q"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("printed %q, want the base URL", line)
	}
	c, err := model.NewClient(model.Config{BaseURL: base, Model: "echo", RequestTimeout: 5 * time.Second, MaxElapsed: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(2)
	resp, err := c.Chat(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: `{"a":1}`}}, Seed: &seed})
	c.Close()
	if err != nil || resp.Content != `{"echo":{"a":1},"seed":2,"tools":[]}` {
		t.Errorf("Chat = %q, %v", resp.Content, err)
	}
	cancel()
	select {
	case got := <-code:
		if got != exitOK {
			t.Errorf("exit code %d after Ctrl-C, want 0", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}
