package reports

import (
	"errors"
	"strings"
	"testing"

	"github.com/baton-lab/baton/input"
)

// TestParseLabelsErrors is the bad-input table of reviewer CSVs: each row
// a broken label file and its one-line, located error.
func TestParseLabelsErrors(t *testing.T) {
	known := map[string]bool{"R001": true, "R002": true}
	tests := []struct {
		name, body, want string
	}{
		{"empty file", "", "l.csv:1: missing header sample_id,verdict (empty file)"},
		{"header only", "sample_id,verdict\n", "l.csv:1: a header and no labels: want one row per sample labelled"},
		{"missing header", "R001,pass\n", `l.csv:1: header: missing header sample_id,verdict (got "R001,pass")`},
		{"duplicated column", "sample_id,verdict,verdict\nR001,pass,fail\n", `l.csv:1:3: header: column "verdict" given twice (columns 2 and 3)`},
		{"duplicated id column", "Sample_ID,verdict,sample_id\nR001,pass,R002\n", `l.csv:1:3: header: column "sample_id" given twice (columns 1 and 3)`},
		{"unknown sample id", "sample_id,verdict\nR001,pass\nR999,fail\n", `l.csv:3:1: sample_id: unknown sample id "R999"`},
		{"duplicate row", "sample_id,verdict\nR001,pass\nR001,fail\n", `l.csv:3:1: sample_id: duplicate row for "R001" (first on line 2)`},
		{"bad verdict", "sample_id,verdict\nR001,maybe\n", `l.csv:2:6: verdict: "maybe" is not pass or fail`},
		{"short row", "sample_id,verdict\nR001\n", `l.csv:2: want columns sample_id and verdict, got "R001"`},
		{"bare quote", "sample_id,verdict\nR0\"01,pass\n", `l.csv:2:3: invalid CSV: bare " in non-quoted-field`},
		{"invalid UTF-8", "sample_id,verdict\nR001,pa\xffss\n", "l.csv:2: invalid UTF-8 (byte 0xff): not a text file"},
		{"long value not echoed", "sample_id,verdict\nR001," + strings.Repeat("x", 4000) + "\n", `l.csv:2:6: verdict: "` + strings.Repeat("x", 64) + `"… (4000 bytes) is not pass or fail`},
		{"too large", strings.Repeat("x", MaxLabelsBytes+1), "l.csv: larger than the 4 MiB a label file may be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseLabels("l.csv", strings.NewReader(tt.body), known)
			if err == nil {
				t.Fatal("want an error")
			}
			var e *input.Error
			if !errors.Is(err, ErrReview) || !errors.As(err, &e) {
				t.Errorf("error %v: want ErrReview and an *input.Error", err)
			}
			if got := err.Error(); got != "review: "+tt.want {
				t.Errorf("\n got %s\nwant review: %s", got, tt.want)
			}
		})
	}
}

func TestParseLabelsBOM(t *testing.T) {
	got, err := parseLabels("l.csv", strings.NewReader("\ufeffsample_id,verdict\nR001,FAIL\n"), map[string]bool{"R001": true})
	if err != nil || got["R001"].verdict != "fail" {
		t.Errorf("got %v, %v; want R001 fail", got, err)
	}
}
