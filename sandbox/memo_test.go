package sandbox

import "testing"

// TestMemoPerToolAndKept checks that a handler's memo is its tool's own,
// kept from call to call and through the sandbox's reset.
func TestMemoPerToolAndKept(t *testing.T) {
	count := func(tx *Tx, _ Args) (Result, string, *Error) {
		p := tx.Memo()
		n, _ := (*p).(int)
		*p = n + 1
		return Result{"calls": float64(n + 1)}, "", nil
	}
	reg, err := NewRegistry(Setup{
		Records: func() Records { return new(notes) },
		Tools: []Tool{
			{Name: "a", Agents: []string{"x"}, Handler: count},
			{Name: "b", Agents: []string{"x"}, Handler: count},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := New(reg, nil, Config{}, NewDice(1), nil)
	calls := func(tool string) float64 {
		t.Helper()
		res, err := s.Call("x", tool, "I", nil, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return res["calls"].(float64)
	}
	if a1, a2, b1 := calls("a"), calls("a"), calls("b"); a1 != 1 || a2 != 2 || b1 != 1 {
		t.Errorf("calls a, a, b = %v, %v, %v; want 1, 2, 1", a1, a2, b1)
	}
	s.empty()
	s.reset(nil, Config{}, NewDice(2), nil)
	if a3 := calls("a"); a3 != 3 {
		t.Errorf("after a reset, a's memo says %v calls; want 3", a3)
	}
}
