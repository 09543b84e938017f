package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// tableKeys is a Table's owner for tests: record i is names[i].
type tableKeys struct{ names []string }

func (k *tableKeys) Key(at uint32) string     { return k.names[at] }
func (k *tableKeys) KeyHash(at uint32) uint64 { return Hash(k.names[at]) }

// A Table under random inserts and removals agrees with a map, and every
// entry stays reachable from its home position, through growth across the
// sizes between powers of two (8, 12, 16, 24, ...) and wrap-around.
func TestTableAgainstMap(t *testing.T) {
	for _, members := range []int{5, 40, 3000, 70000} {
		t.Run(fmt.Sprint(members), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(members)))
			var tb Table
			keys := &tableKeys{}
			model := map[string]uint32{} // name -> record number
			var free []uint32
			sizes := map[int]bool{}
			for step := range 6 * members {
				name := fmt.Sprintf("m%d", rng.IntN(members))
				h := Hash(name)
				pos, at, found := tb.Find(name, h, keys)
				want, in := model[name]
				if found != in || (in && at != want) {
					t.Fatalf("step %d: Find(%s) = %d %v, want %d %v", step, name, at, found, want, in)
				}
				if in && rng.IntN(3) == 0 {
					tb.Remove(pos, keys)
					delete(model, name)
					free = append(free, at)
					continue
				}
				if in {
					continue
				}
				// Reuse record numbers first, as the owners do.
				var rec uint32
				if k := len(free); k > 0 {
					rec, free = free[k-1], free[:k-1]
					keys.names[rec] = name
				} else {
					rec = uint32(len(keys.names))
					keys.names = append(keys.names, name)
				}
				tb.Insert(rec, h, keys)
				model[name] = rec
				sizes[tb.Size()] = true
			}
			if tb.Len() != len(model) || tb.Len()*4 > tb.Size()*3 {
				t.Fatalf("%d entries of %d positions, model %d", tb.Len(), tb.Size(), len(model))
			}
			// Every entry is found from its home without meeting a hole.
			for i, v := range tb.slots {
				if v == 0 {
					continue
				}
				at := v&tb.mask() - 1
				for j := tb.home(keys.KeyHash(at)); j != uint32(i); j = tb.next(j) {
					if tb.slots[j] == 0 {
						t.Fatalf("entry %d (%s) at %d unreachable: hole at %d", at, keys.names[at], i, j)
					}
				}
			}
			between := 0
			for size := range sizes {
				if size&(size-1) != 0 {
					between++
				}
			}
			if members >= 40 && between == 0 {
				t.Fatalf("no size between powers of two seen: %v", sizes)
			}
		})
	}
}
