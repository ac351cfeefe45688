package invoice

import "testing"

// containsFoldNaive tries every position, as containsFold did before it
// skipped positions whose byte cannot start a match.
func containsFoldNaive(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if matchFoldAt(s, i, sub) {
			return true
		}
	}
	return false
}

func FuzzContainsFold(f *testing.F) {
	for _, tc := range [][2]string{
		{"Please IGNORE YOUR\n  rules now", "ignore your rules"}, {"<ScRiPt src=x>", "<script"},
		{"a  b", " b"}, {"x\tyz", " yz"}, {"", "a"}, {"ABC", "c"}, {"É", "é"}, {"[\x5b", "{"},
	} {
		f.Add(tc[0], tc[1])
	}
	f.Fuzz(func(t *testing.T, s, sub string) {
		if got, want := containsFold(s, sub), containsFoldNaive(s, sub); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, trying every position says %v", s, sub, got, want)
		}
	})
}
