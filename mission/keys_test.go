package mission

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

// TestKeyMemo asks for more items' keys than the memo holds, each twice:
// every row has item + ":" + tool for each write, "" for each read, and
// each edge's message key and first ids, before and after the memo starts
// again.
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
	tabs := &tables{
		edges: []EdgeSpec{{From: "clerk", To: "desk", Kind: "note.filed"}, {From: "desk", To: "clerk", Kind: "note.read"}},
		from:  []int{0, 1}, to: []int{1, 0},
		names: [][]string{{"", "clerk->desk"}, {"desk->clerk", ""}},
	}
	var c keyMemo
	for round := range 2 {
		for i := range keyMemoMax + 10 {
			item := "E" + strconv.Itoa(i)
			want := &itemKeys{
				item:  item,
				tools: []string{"", item + ":pay", item + ":file"},
				edges: []any{item + ":note.filed", item + ":note.read"},
				ids: [][idSeqs]any{
					{"m-" + item + "-clerk->desk-1", "m-" + item + "-clerk->desk-2"},
					{"m-" + item + "-desk->clerk-1", "m-" + item + "-desk->clerk-2"},
				},
			}
			if diff := cmp.Diff(want, c.row(item, tabs, reg), cmp.AllowUnexported(itemKeys{})); diff != "" {
				t.Fatalf("round %d, %s: (-want +got)\n%s", round, item, diff)
			}
		}
		if len(c.m) > keyMemoMax {
			t.Fatalf("the memo holds %d items, more than %d", len(c.m), keyMemoMax)
		}
	}
}
