package commands

import "testing"

// TestExpiringSet: a key stays marked while any of its drops is in flight
// (ExpireCycle may run side by side with itself), and the count the hot
// path reads follows the keys, not the drops.
func TestExpiringSet(t *testing.T) {
	k0, k1 := dbKey{0, "a"}, dbKey{1, "a"}
	steps := []struct {
		op      string // add, remove
		k       dbKey
		has0    bool // k0 marked after the step
		has1    bool // k1 marked after the step
		n       int
		anyMark bool
	}{
		{"add", k0, true, false, 1, true},
		{"add", k0, true, false, 1, true},
		{"add", k1, true, true, 2, true},
		{"remove", k0, true, true, 2, true}, // one drop of k0 still in flight
		{"remove", k0, false, true, 1, true},
		{"remove", k1, false, false, 0, false},
	}
	var s expiringSet
	if s.any() || s.has(0, "a") {
		t.Fatal("a new set marks a key")
	}
	for i, st := range steps {
		if st.op == "add" {
			s.add(st.k)
		} else {
			s.remove(st.k)
		}
		if got := s.has(k0.db, k0.key); got != st.has0 {
			t.Errorf("step %d (%s %v): has(k0) = %v, want %v", i, st.op, st.k, got, st.has0)
		}
		if got := s.has(k1.db, k1.key); got != st.has1 {
			t.Errorf("step %d (%s %v): has(k1) = %v, want %v", i, st.op, st.k, got, st.has1)
		}
		if s.count() != st.n || s.any() != st.anyMark {
			t.Errorf("step %d (%s %v): count %d any %v, want %d %v", i, st.op, st.k, s.count(), s.any(), st.n, st.anyMark)
		}
	}
}
