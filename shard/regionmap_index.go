package shard

import (
	"cmp"
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
	t.boxes = append([]geo.Rect(nil), items...)
	t.ref = make([]int32, n)
	for i := range t.ref {
		t.ref[i] = int32(i)
	}
	start, end := 0, n
	for {
		// Each level is tiled (sort-tile-recursive) before it is grouped,
		// so that a node holds neighbours and node boxes barely overlap.
		rmTile(t.boxes[start:end], t.ref[start:end])
		t.levels = append(t.levels, start)
		for i := start; i < end; i += rmNodeSize {
			b := t.boxes[i]
			for j := i + 1; j < end && j < i+rmNodeSize; j++ {
				b = rmUnion(b, t.boxes[j])
			}
			t.boxes = append(t.boxes, b)
			t.ref = append(t.ref, int32(i))
		}
		if len(t.boxes)-end == 1 {
			t.levels = append(t.levels, end)
			break
		}
		start, end = end, len(t.boxes)
	}
	return t
}

// rmTile orders boxes (and their refs alike) in vertical slices by
// centre longitude, each slice by centre latitude.
func rmTile(boxes []geo.Rect, refs []int32) {
	type entry struct {
		box geo.Rect
		ref int32
	}
	n := len(boxes)
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{boxes[i], refs[i]}
	}
	cx := func(e entry) float64 { return e.box.MinLon + e.box.MaxLon }
	cy := func(e entry) float64 { return e.box.MinLat + e.box.MaxLat }
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(cx(a), cx(b)) })
	nodes := (n + rmNodeSize - 1) / rmNodeSize
	slice := int(math.Ceil(math.Sqrt(float64(nodes)))) * rmNodeSize
	for i := 0; i < n; i += slice {
		part := es[i:min(i+slice, n)]
		slices.SortStableFunc(part, func(a, b entry) int { return cmp.Compare(cy(a), cy(b)) })
	}
	for i, e := range es {
		boxes[i], refs[i] = e.box, e.ref
	}
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
