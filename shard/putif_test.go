package shard

import "testing"

// PutIf stores only over the copy the writer expects: one stamped expect,
// or, for a negative expect, no copy stamped -expect or later.
func TestPutIf(t *testing.T) {
	k := Key{Name: "k"}
	cases := []struct {
		name   string
		have   int64 // stamp of the copy here; 0: none
		expect int64
		stored bool
	}{
		{"same stamp", 100, 100, true},
		{"other stamp", 100, 99, false},
		{"no copy, stamp expected", 0, 100, false},
		{"absent asked, none", 0, -50, true},
		{"absent asked, copy older than the cut", 49, -50, true},
		{"absent asked, copy at the cut", 50, -50, false},
		{"absent asked, live copy", 100, -50, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			if c.have != 0 {
				s.Put(k, NewEntry("m", 1, c.have))
			}
			if got := s.PutIf(k, NewEntry("m", 2, 200), c.expect); got != c.stored {
				t.Fatalf("PutIf over stamp %d expecting %d = %v, want %v", c.have, c.expect, got, c.stored)
			}
			e, ok := s.Get(k, "m")
			want := c.have
			if c.stored {
				want = 200
			}
			if ok != (want != 0) || ok && e.Stamp != want {
				t.Fatalf("copy after: %+v (%v), want stamp %d", e, ok, want)
			}
		})
	}
}
