package shard

import "testing"

// A slab hands out slots in order and keeps every item where it was put,
// across chunk boundaries and after a reserve, whether the first chunk is
// still growing or not.
func TestSlabKeepsItems(t *testing.T) {
	for _, tc := range []struct {
		name           string
		before, expect int // pushes before the reserve, and its size
	}{
		{"empty", 0, 3 * slabChunk},
		{"small first chunk", 3, 10},
		{"first chunk to full", 5, slabChunk},
		{"past the first chunk", slabChunk + 7, 2 * slabChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b slab
			var model []item
			push := func(i int) {
				it := item{score: float64(i), stamp: int64(i)}
				if at := b.push(it); int(at) != len(model) {
					t.Fatalf("push %d: slot %d", i, at)
				}
				model = append(model, it)
			}
			for i := range tc.before {
				push(i)
			}
			b.reserve(tc.expect)
			for i := range tc.expect + slabChunk/2 {
				push(tc.before + i)
			}
			if b.len() != len(model) {
				t.Fatalf("len %d, want %d", b.len(), len(model))
			}
			for i, want := range model {
				if got := *b.at(uint32(i)); got != want {
					t.Fatalf("slot %d: %+v, want %+v", i, got, want)
				}
			}
		})
	}
}
