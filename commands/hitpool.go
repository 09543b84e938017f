package commands

import (
	"sync"

	"geoshard/shard"
)

// hitPool lends searches their hit slices. A 5 km search without COUNT
// over a metro of 200,000 drivers collects ~180,000 hits (64 B each), and
// growing a fresh slice for each such search allocated 43 MB of garbage
// per search: the garbage that makes a lower gc-percent expensive.
//
// A sync.Pool empties at every other collection, and most slices in it
// are a nearest search's few dozen hits: a full search (a knn whose n-th
// and next hits tie, a search without COUNT) then grows a small one to
// thousands of hits, 0.6 MB of garbage for a 2 km circle in a metro, 25
// times a second under the load tool's knn phase (issue 10). So a few
// big slices are also kept aside, where collections leave them.
type hitPool struct {
	p     sync.Pool
	mu    sync.Mutex
	spare []*[]shard.Hit // at most maxSpares, each of bigHits or more
}

const (
	// maxPooledHits bounds what the pool keeps: a slice for a search of a
	// whole continent is not worth holding on to between searches.
	maxPooledHits = 1 << 18
	// bigHits is the capacity from which a slice is worth keeping aside.
	bigHits = 1 << 8
	// maxSpares bounds the slices kept aside; with maxSpareHits, their
	// memory (2 MB at most) when the server is idle.
	maxSpares    = 2
	maxSpareHits = 1 << 14
)

// get lends a slice in a box; the box goes back with put, so that
// putting it back costs no allocation (a slice put in a sync.Pool
// unboxed is boxed anew every time: 24 B of garbage a search).
func (h *hitPool) get() *[]shard.Hit {
	if b, ok := h.p.Get().(*[]shard.Hit); ok {
		return b
	}
	return h.grow(new([]shard.Hit))
}

// grow swaps b's slice for a big one kept aside, for a search that
// collects every hit, when b's is small; b's goes back to the pool.
func (h *hitPool) grow(b *[]shard.Hit) *[]shard.Hit {
	if cap(*b) >= bigHits {
		return b
	}
	h.mu.Lock()
	n := len(h.spare)
	if n == 0 {
		h.mu.Unlock()
		return b
	}
	// The biggest: a full search's hits fill it, a smaller one grows.
	i := 0
	for j := range h.spare {
		if cap(*h.spare[j]) > cap(*h.spare[i]) {
			i = j
		}
	}
	big := h.spare[i]
	h.spare[i] = h.spare[n-1]
	h.spare = h.spare[:n-1]
	h.mu.Unlock()
	h.put(b) // even empty: the box is worth keeping
	return big
}

// put takes a slice back once its reply is written. The hits the search
// put in it are cleared so that the pool does not keep members' names
// alive.
func (h *hitPool) put(b *[]shard.Hit) {
	if cap(*b) > maxPooledHits {
		*b = nil
	}
	clear(*b)
	*b = (*b)[:0]
	if c := cap(*b); c >= bigHits && c <= maxSpareHits {
		h.mu.Lock()
		if len(h.spare) < maxSpares {
			h.spare = append(h.spare, b)
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
	h.p.Put(b)
}
