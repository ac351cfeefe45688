package contracts

import "testing"

// BenchmarkCheckSemantic checks a typical intake->action hand-off (a
// two-line USD invoice) at the strongest level.
func BenchmarkCheckSemantic(b *testing.B) {
	s := defaults(b)
	raw := marshal(b, invoiceExtracted())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Check("intake->action", raw, LevelSemantic); len(v) != 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkCheckSchema is the same message at the weakest level, to show
// what the CEL rules cost.
func BenchmarkCheckSchema(b *testing.B) {
	s := defaults(b)
	raw := marshal(b, invoiceExtracted())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Check("intake->action", raw, LevelSchema); len(v) != 0 {
			b.Fatal(v)
		}
	}
}

func BenchmarkDefaultParse(b *testing.B) {
	srcs := DefaultSources()
	b.ReportAllocs()
	for b.Loop() {
		for name, src := range srcs {
			if _, err := Parse(name, src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
