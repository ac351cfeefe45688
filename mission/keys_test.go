package mission

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

// TestKeyMemo asks for more items' keys than the memo holds, each twice:
// every row is item + ":" + tool for each write, "" for each read, before
// and after the memo starts again.
func TestKeyMemo(t *testing.T) {
	handler := func(*sandbox.Tx, sandbox.Args) (sandbox.Result, string, *sandbox.Error) { return nil, "", nil }
	reg, err := sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return nil },
		Kinds:   []sandbox.RecordKind{{Name: "note", Prefix: "N"}},
		Tools: []sandbox.Tool{
			{Name: "look", Agents: []string{"clerk"}, Handler: handler},
			{Name: "pay", Access: sandbox.Write, Record: "note", ResultID: "id", Agents: []string{"clerk"}, Handler: handler},
			{Name: "file", Access: sandbox.Write, Record: "note", ResultID: "id", Agents: []string{"clerk"}, Handler: handler},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var c keyMemo
	for round := range 2 {
		for i := range keyMemoMax + 10 {
			item := "E" + strconv.Itoa(i)
			want := []string{"", item + ":pay", item + ":file"}
			if diff := cmp.Diff(want, c.row(item, reg)); diff != "" {
				t.Fatalf("round %d, %s: (-want +got)\n%s", round, item, diff)
			}
		}
		if len(c.m) > keyMemoMax {
			t.Fatalf("the memo holds %d items, more than %d", len(c.m), keyMemoMax)
		}
	}
}
