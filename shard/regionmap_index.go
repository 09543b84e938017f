package shard

import (
	"math"
	"slices"

	"geoshard/geo"
)

// rmTree is a static packed R-tree over rectangles, built once for a map.
// It is searched with a fixed-size stack on the goroutine's stack, so a
// search does not allocate (the callback, which does not escape, lives on
// the caller's stack too).
type rmTree struct {
	boxes  []geo.Rect // leaves (sorted items) first, then each upper level
	ref    []int32    // leaf: item index; node: position of its first child
	levels []int      // start of each level in boxes; the root is last
}

const rmNodeSize = 16

// rmStackSize bounds the search stack: a depth-first search holds at most
// rmNodeSize-1 siblings per level, and 8 levels hold 16^8 items.
const rmStackSize = 8 * rmNodeSize

func rmBuildTree(items []geo.Rect) rmTree {
	var t rmTree
	n := len(items)
	if n == 0 {
		return t
	}
	// Sort items along a Z-order curve of their centres so that each node
	// holds neighbours.
	all := items[0]
	for _, r := range items[1:] {
		all = rmUnion(all, r)
	}
	w, h := all.MaxLon-all.MinLon, all.MaxLat-all.MinLat
	key := func(r geo.Rect) uint64 {
		var x, y uint32
		if w > 0 {
			x = uint32(((r.MinLon+r.MaxLon)/2 - all.MinLon) / w * 65535)
		}
		if h > 0 {
			y = uint32(((r.MinLat+r.MaxLat)/2 - all.MinLat) / h * 65535)
		}
		return rmSpread(x) | rmSpread(y)<<1
	}
	order := make([]int32, n)
	keys := make([]uint64, n)
	for i := range order {
		order[i] = int32(i)
		keys[i] = key(items[i])
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	for _, i := range order {
		t.boxes = append(t.boxes, items[i])
		t.ref = append(t.ref, i)
	}
	t.levels = append(t.levels, 0)
	start, end := 0, n
	for {
		for i := start; i < end; i += rmNodeSize {
			b := t.boxes[i]
			for j := i + 1; j < end && j < i+rmNodeSize; j++ {
				b = rmUnion(b, t.boxes[j])
			}
			t.boxes = append(t.boxes, b)
			t.ref = append(t.ref, int32(i))
		}
		t.levels = append(t.levels, end)
		if len(t.boxes)-end == 1 {
			break
		}
		start, end = end, len(t.boxes)
	}
	return t
}

func rmSpread(v uint32) uint64 {
	x := uint64(v) & 0xffff
	x = (x | x<<8) & 0x00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f
	x = (x | x<<2) & 0x33333333
	x = (x | x<<1) & 0x55555555
	return x
}

// search calls fn with the index of every item whose box meets q, until fn
// returns false; it reports whether it ran to the end.
func (t *rmTree) search(q geo.Rect, fn func(i int32) bool) bool {
	if len(t.boxes) == 0 || math.IsNaN(q.MinLon+q.MaxLon+q.MinLat+q.MaxLat) {
		return true
	}
	root := len(t.boxes) - 1
	if !t.boxes[root].Intersects(q) {
		return true
	}
	var stack [rmStackSize]int32
	stack[0] = int32(root)
	sp := 1
	for sp > 0 {
		sp--
		node := int(stack[sp])
		lvl := len(t.levels) - 1
		for node < t.levels[lvl] {
			lvl--
		}
		// Children of a node at level lvl live in level lvl-1.
		first := int(t.ref[node])
		end := t.levels[lvl] // end of level lvl-1
		last := min(first+rmNodeSize, end)
		for c := first; c < last; c++ {
			if !t.boxes[c].Intersects(q) {
				continue
			}
			if lvl == 1 {
				if !fn(t.ref[c]) {
					return false
				}
				continue
			}
			stack[sp] = int32(c)
			sp++
		}
	}
	return true
}
