package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-lab/baton/contracts"
)

// TestContractsCheckCancelled: Ctrl-C during a long contract load stops
// `contracts check` between files instead of compiling all of them
// (issue 23 item 2). Forty contracts of the most fields allowed take
// seconds to compile; the context is cancelled a moment into the load.
func TestContractsCheckCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles wide contracts")
	}
	dir := t.TempDir()
	var fields strings.Builder
	for i := range contracts.MaxContractFields {
		fmt.Fprintf(&fields, "  f%d: {type: number}\n", i)
	}
	const files = 40
	for i := range files {
		src := fmt.Sprintf("edge: a->b%d\nkind: k\nversion: \"1\"\nowner: b%d\nfields:\n%s", i, i, fields.String())
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%02d.yaml", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	msg := filepath.Join(dir, "m.json")
	if err := os.WriteFile(msg, []byte(`{"edge":"a->b0","payload":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan int)
	go func() { done <- Run(ctx, []string{"contracts", "check", "--contracts", dir, msg}, &out, &out) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case code := <-done:
		t.Logf("returned %v after the cancel", time.Since(cancelled).Round(time.Millisecond))
		if code != exitError || !strings.Contains(out.String(), "baton: interrupted while loading: load contracts: context canceled") {
			t.Errorf("exit %d, output:\n%s\nwant exit %d and interrupted while loading", code, out.String(), exitError)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("contracts check did not stop after the cancel")
	}
}

// TestScenariosListCancelled: Ctrl-C during a long scenario load stops
// `scenarios list` at once (issue 23 item 2): a hundred and fifty scenario files
// take seconds to parse; the context is cancelled a moment in.
func TestScenariosListCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("parses many scenario files")
	}
	src, err := os.ReadFile("../../mission/invoice/scenarios/typical.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ids := regexp.MustCompile(`\bS(\d\d)\b`)
	for i := range 150 {
		body := ids.ReplaceAll(src, []byte(fmt.Sprintf("F%d_S$1", i)))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%03d.yaml", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan int)
	go func() { done <- Run(ctx, []string{"scenarios", "list", "--file", dir}, &out, &out) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case code := <-done:
		t.Logf("returned %v after the cancel", time.Since(cancelled).Round(time.Millisecond))
		if code != exitError || !strings.Contains(out.String(), "baton: interrupted while loading: context canceled") {
			t.Errorf("exit %d, output:\n%.2000s\nwant exit %d and interrupted while loading", code, out.String(), exitError)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("scenarios list did not stop after the cancel")
	}
}
