package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"geoshard/geo"
)

// PutHashSlot and DeleteHash, with the hash a router hands them, leave a
// shard as Put and Delete would, through growth from empty to tens of
// thousands of members (so the name index's entries carry hash tags of
// every width, from 29 bits down to 16) and churn that frees and reuses
// slab slots.
func TestPutHashAgainstPut(t *testing.T) {
	cases := []struct {
		name     string
		members  int
		steps    int
		delEvery int
	}{
		{"few", 5, 2000, 3},
		{"growing", 40000, 60000, 0},
		{"churn", 20000, 80000, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, uint64(c.members)))
			hashed, plain := New(), New()
			for i := range c.steps {
				name := fmt.Sprintf("driver:%d", rng.IntN(c.members))
				if c.delEvery > 0 && rng.IntN(c.delEvery) == 0 {
					// Half the deletes come late, as a handoff's may,
					// and must spare a copy written after notAfter.
					notAfter := int64(math.MaxInt64)
					if rng.IntN(2) == 0 {
						notAfter = int64(i - c.members)
					}
					a, okA := hashed.DeleteHash(drivers, name, notAfter, Hash(name))
					b, okB := plain.Delete(drivers, name, notAfter)
					if okA != okB || a != b {
						t.Fatalf("step %d: DeleteHash(%q, %d) = %v %v, Delete says %v %v", i, name, notAfter, a, okA, b, okB)
					}
					continue
				}
				e := NewEntry(name, geo.Encode(4+rng.Float64(), 52+rng.Float64()), int64(i))
				_, want := plain.Put(drivers, e)
				if _, got, _ := hashed.PutHashSlot(drivers, e, Hash(name)); got != want {
					t.Fatalf("step %d: PutHashSlot(%q) existed=%v, Put says %v", i, name, got, want)
				}
			}
			sameShards(t, hashed, plain)
			for m := range c.members {
				name := fmt.Sprintf("driver:%d", m)
				a, okA := hashed.Get(drivers, name)
				b, okB := plain.Get(drivers, name)
				if okA != okB || a != b {
					t.Fatalf("Get(%q) = %v %v after PutHashSlot, %v %v after Put", name, a, okA, b, okB)
				}
			}
		})
	}
}
