package score

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func call(name string, args map[string]any) Call { return Call{Name: name, Args: args} }

func TestTrajectory(t *testing.T) {
	book := call("get_booking", map[string]any{"id": "B7"})
	refund := call("refund", map[string]any{"booking": "B7", "amount": 140})
	refundFloat := call("refund", map[string]any{"amount": 140.0, "booking": "B7"})
	refundWrong := call("refund", map[string]any{"booking": "B7", "amount": 1400})
	policy := call("get_policy", map[string]any{"kind": "refund"})

	tests := []struct {
		name          string
		expected, got []Call
		want          Match
	}{
		{"identical", []Call{book, refund}, []Call{book, refund}, Match{true, true, true}},
		{"140 equals 140.0, key order irrelevant", []Call{book, refund}, []Call{book, refundFloat}, Match{true, true, true}},
		{"both empty", nil, []Call{}, Match{true, true, true}},
		{"wrong argument: only name-only forgives", []Call{book, refund}, []Call{book, refundWrong}, Match{false, true, false}},
		{"swapped order: only order-ignored forgives", []Call{book, policy}, []Call{policy, book}, Match{false, false, true}},
		{"swapped order and wrong argument: nothing forgives", []Call{book, refund}, []Call{refundWrong, book}, Match{}},
		{"missing call", []Call{book, refund}, []Call{book}, Match{}},
		{"extra call", []Call{book}, []Call{book, book}, Match{}},
		{"multiset counts duplicates", []Call{book, book, policy}, []Call{policy, book, policy}, Match{}},
		{"same multiset with duplicates", []Call{book, policy, book}, []Call{policy, book, book}, Match{false, false, true}},
		{"nil args equal empty args", []Call{call("ping", nil)}, []Call{call("ping", map[string]any{})}, Match{true, true, true}},
		{"other tool name", []Call{book}, []Call{call("get_bookings", map[string]any{"id": "B7"})}, Match{}},
		{"extra argument", []Call{book}, []Call{call("get_booking", map[string]any{"id": "B7", "x": nil})}, Match{false, true, false}},
		{"string 140 is not number 140", []Call{refund}, []Call{call("refund", map[string]any{"booking": "B7", "amount": "140"})}, Match{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Trajectory(tt.expected, tt.got)); diff != "" {
				t.Errorf("Trajectory (-want +got):\n%s", diff)
			}
		})
	}
}

// Arguments compare as JSON values (jsontext.Equal, tested there); a nil
// map is the empty one.
func TestEqualArgs(t *testing.T) {
	tests := []struct {
		name string
		a, b map[string]any
		want bool
	}{
		{"nil and empty", nil, map[string]any{}, true},
		{"int and float", map[string]any{"qty": 2}, map[string]any{"qty": 2.0}, true},
		{"minus zero", map[string]any{"x": 0.0}, map[string]any{"x": math.Copysign(0, -1)}, true},
		{"nested null is not {}", map[string]any{"x": map[string]any(nil)}, map[string]any{"x": map[string]any{}}, false},
		{"other value", map[string]any{"qty": 2}, map[string]any{"qty": 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := equalArgs(tt.a, tt.b); got != tt.want {
				t.Errorf("equalArgs(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// trajectoryFixture is a design-A-sized trajectory: args built by Go code
// on one side (ints, strings) and decoded JSON on the other (float64).
func trajectoryFixture(n int) (expected, got []Call) {
	for i := range n {
		expected = append(expected, Call{Name: fmt.Sprintf("tool%d", i%4), Args: map[string]any{
			"item": fmt.Sprintf("E%d", i), "amount": 1000 + i, "currency": "EUR",
			"lines": []any{map[string]any{"sku": "S1", "qty": 2}},
		}})
		got = append(got, Call{Name: fmt.Sprintf("tool%d", i%4), Args: map[string]any{
			"currency": "EUR", "amount": float64(1000 + i), "item": fmt.Sprintf("E%d", i),
			"lines": []any{map[string]any{"qty": 2.0, "sku": "S1"}},
		}})
	}
	return expected, got
}

func BenchmarkTrajectory(b *testing.B) {
	for _, n := range []int{4, 16} {
		expected, got := trajectoryFixture(n)
		reversed := make([]Call, len(got))
		for i := range got {
			reversed[len(got)-1-i] = got[i]
		}
		b.Run(fmt.Sprintf("exact/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !Trajectory(expected, got).Exact {
					b.Fatal("not exact")
				}
			}
		})
		b.Run(fmt.Sprintf("reordered/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !Trajectory(expected, reversed).OrderIgnored {
					b.Fatal("not order-ignored")
				}
			}
		})
	}
}

func TestTrajectoryDoesNotAllocate(t *testing.T) {
	expected, got := trajectoryFixture(8)
	if n := testing.AllocsPerRun(100, func() { Trajectory(expected, got) }); n != 0 {
		t.Errorf("Trajectory allocates %v times per call, want 0", n)
	}
}

func ExampleTrajectory() {
	expected := []Call{
		{Name: "get_booking", Args: map[string]any{"id": "B7"}},
		{Name: "refund", Args: map[string]any{"booking": "B7", "amount": 140}},
	}
	got := []Call{
		{Name: "refund", Args: map[string]any{"amount": 140.0, "booking": "B7"}},
		{Name: "get_booking", Args: map[string]any{"id": "B7"}},
	}
	m := Trajectory(expected, got)
	fmt.Printf("exact=%v name_only=%v order_ignored=%v\n", m.Exact, m.NameOnly, m.OrderIgnored)
	// Output: exact=false name_only=false order_ignored=true
}

func ptr[T any](v T) *T { return &v }
