package triage

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCopyFromIsDeep: a copy into a used store marshals as its source
// does (nil and empty keywords kept apart), and changing the copy's
// keywords, or appending to them, leaves the source and the other
// articles alone.
func TestCopyFromIsDeep(t *testing.T) {
	src := &Records{
		Invoices: []Invoice{{ID: "INV-1", Amount: 10}},
		Articles: []Article{
			{ID: "KB-1", Keywords: []string{"printer", "offline"}},
			{ID: "KB-2"},
			{ID: "KB-3", Keywords: []string{}},
			{ID: "KB-4", Keywords: []string{"login"}},
		},
	}
	want, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := &Records{Articles: make([]Article, 8), Invoices: make([]Invoice, 0, 4)}
	dst.Reset()
	dst.CopyFrom(src)
	got, err := json.Marshal(dst)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("copy marshals differently (-source +copy):\n%s", diff)
	}
	dst.Articles[0].Keywords[1] = "changed"
	dst.Articles[0].Keywords = append(dst.Articles[0].Keywords, "more")
	dst.Articles[2].Keywords = append(dst.Articles[2].Keywords, "new")
	if src.Articles[0].Keywords[1] != "offline" || len(src.Articles[2].Keywords) != 0 {
		t.Errorf("changing the copy changed the source: %+v", src.Articles)
	}
	if got := dst.Articles[3].Keywords; len(got) != 1 || got[0] != "login" {
		t.Errorf("appending to one article's keywords changed another's: %q", got)
	}
}
