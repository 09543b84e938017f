package commands

import (
	"sync"

	"geoshard/shard"
)

// hitPool lends searches their hit slices. A 5 km search without COUNT
// over a metro of 200,000 drivers collects ~180,000 hits (64 B each), and
// growing a fresh slice for each such search allocated 43 MB of garbage
// per search: the garbage that makes a lower gc-percent expensive.
type hitPool struct{ p sync.Pool }

// maxPooledHits bounds what the pool keeps: a slice for a search of a
// whole continent is not worth holding on to between searches.
const maxPooledHits = 1 << 18

// get lends a slice in a box; the box goes back with put, so that
// putting it back costs no allocation (a slice put in a sync.Pool
// unboxed is boxed anew every time: 24 B of garbage a search).
func (h *hitPool) get() *[]shard.Hit {
	if b, ok := h.p.Get().(*[]shard.Hit); ok {
		return b
	}
	return new([]shard.Hit)
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
	h.p.Put(b)
}
