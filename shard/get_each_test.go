package shard

import (
	"slices"
	"testing"
)

// TestGetEach finds, for each member asked, what Get finds, and nothing
// for a key the shard does not hold.
func TestGetEach(t *testing.T) {
	s := New()
	k := Key{Name: "drivers"}
	s.Put(k, NewEntry("a", 3471579339145000, 10))
	s.Put(k, NewEntry("c", 3471579339150000, 20))
	s.Put(Key{Name: "other"}, NewEntry("b", 1, 1))
	for _, tc := range []struct {
		name    string
		k       Key
		members []string
		want    []int
	}{
		{"some", k, []string{"a", "b", "c", "d"}, []int{0, 2}},
		{"repeated", k, []string{"c", "c"}, []int{0, 1}},
		{"none", k, []string{"x"}, nil},
		{"no such key", Key{Name: "nokey"}, []string{"a"}, nil},
		{"other db", Key{DB: 1, Name: "drivers"}, []string{"a"}, nil},
	} {
		var got []int
		s.GetEach(tc.k, tc.members, func(i int, e Entry) {
			want, ok := s.Get(tc.k, tc.members[i])
			if !ok || want != e {
				t.Errorf("%s: member %q: %+v, Get says %+v %v", tc.name, tc.members[i], e, want, ok)
			}
			got = append(got, i)
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: found %v, want %v", tc.name, got, tc.want)
		}
	}
}
