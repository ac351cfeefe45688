package mission

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergeResults: a later turn's field replaces an earlier one's, the
// others stay, and one turn's result is itself.
func TestMergeResults(t *testing.T) {
	tests := []struct {
		name      string
		acc, next Result
		want      Result
	}{
		{"one turn", nil, Result{"a": 1}, Result{"a": 1}},
		{"no next", Result{"a": 1}, nil, Result{"a": 1}},
		{"kept and replaced", Result{"a": 1, "b": "x"}, Result{"b": "y", "c": true}, Result{"a": 1, "b": "y", "c": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mergeResults(tt.acc, tt.next)); diff != "" {
				t.Errorf("mergeResults (-want +got):\n%s", diff)
			}
		})
	}
}
