package folder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewNumbersTakenNames(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var got []string
	for range 3 {
		dir, err := New(out, "p-7-x")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(dir))
	}
	if diff := cmp.Diff([]string{"p-7-x", "p-7-x-2", "p-7-x-3"}, got); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
}

func TestNewReportsOtherErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(file, "x"); err == nil {
		t.Error("a folder under a file: no error")
	}
}
