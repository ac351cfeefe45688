package contracts

import (
	"testing"

	"github.com/baton-lab/baton/mission/invoice"
)

// BenchmarkCheckSemantic checks a typical intake->action hand-off (a
// two-line USD invoice) at the strongest level: "uncached" is the check
// itself, a message Check has not seen before (the figure to quote);
// "memo" is Check on bytes it has seen, mostly the memo's look-up, as a
// sweep checks the same golden messages many times.
func BenchmarkCheckSemantic(b *testing.B) {
	s := defaults(b)
	c, _ := s.Contract("intake->action")
	raw := marshal(b, invoiceExtracted())
	b.Run("uncached", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if v := s.check(c, "intake->action", raw, LevelSemantic); len(v) != 0 {
				b.Fatal(v)
			}
		}
	})
	b.Run("memo", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if v := s.Check("intake->action", raw, LevelSemantic); len(v) != 0 {
				b.Fatal(v)
			}
		}
	})
}

// BenchmarkCheckSchema is the same message at the weakest level, without
// the memo, to show what the CEL rules cost.
func BenchmarkCheckSchema(b *testing.B) {
	s := defaults(b)
	c, _ := s.Contract("intake->action")
	raw := marshal(b, invoiceExtracted())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if v := s.check(c, "intake->action", raw, LevelSchema); len(v) != 0 {
			b.Fatal(v)
		}
	}
}

func BenchmarkDefaultParse(b *testing.B) {
	srcs := Sources(invoice.Spec().Contracts)
	b.ReportAllocs()
	for b.Loop() {
		for name, src := range srcs {
			if _, err := Parse(name, src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseWideContract compiles a contract with the most fields one
// may have (MaxContractFields): the JSON Schema compiler's time grows
// with the square of the fields, and the bound keeps the worst case short.
func BenchmarkParseWideContract(b *testing.B) {
	src := []byte("edge: a->b\nkind: k\nversion: \"1\"\nowner: b\nfields:\n" + manyFields(MaxContractFields))
	for b.Loop() {
		if _, err := Parse("wide.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}
