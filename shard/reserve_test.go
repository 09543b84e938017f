package shard

import (
	"fmt"
	"testing"

	"geoshard/geo"
)

// After Reserve, putting that many members never grows the name index,
// and the set answers as one that grew.
func TestReserveAvoidsGrowth(t *testing.T) {
	s := New()
	k := Key{Name: "k"}
	s.Reserve(k, 5000)
	st := s.sets[k]
	index := len(st.byName.slots)
	for i := range 5000 {
		s.Put(k, NewEntry(fmt.Sprint(i), geo.Encode(float64(i%360)-180, float64(i%170)-85), int64(i)))
	}
	if len(st.byName.slots) != index {
		t.Fatalf("the name index grew: %d -> %d slots", index, len(st.byName.slots))
	}
	for _, i := range []int{0, 2500, 4999} {
		if e, ok := s.Get(k, fmt.Sprint(i)); !ok || e.Stamp != int64(i) {
			t.Fatalf("member %d: %+v %v", i, e, ok)
		}
	}
	if s.Len(k) != 5000 {
		t.Fatalf("len %d", s.Len(k))
	}
	s.Reserve(k, 0) // nothing to do
}
