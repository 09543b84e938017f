package server

import (
	"runtime"
	"time"
)

// reclaimAfter is how many bytes of big bulks a connection must have
// received for its end to be worth a garbage collection.
const reclaimAfter = 32 << 20

// reclaimDelay gathers the ends of several such connections into one
// collection.
const reclaimDelay = 200 * time.Millisecond

// reclaimSoon runs a garbage collection shortly, once for any number of
// calls meanwhile. A client that sent hundreds of megabytes of bulk and
// left leaves them as garbage, and with nothing else allocating, the next
// collection (and the return of the pages to the system that follows
// it) could be minutes away. Measured (TestOpsPartialBulkMemory, 2
// clients leaving 160 MB each): without this, or with one collection,
// the 320 MB were still resident after 60 s; with two, back within 2.5 s.
func (s *Server) reclaimSoon() {
	if !s.reclaiming.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(reclaimDelay, func() {
		s.reclaiming.Store(false)
		// Twice: the first frees the garbage, but the pages are handed
		// back only down to the heap goal of the cycle that freed them,
		// which was set while the garbage was still live; the second
		// cycle's goal follows the heap that is really left.
		runtime.GC()
		runtime.GC()
	})
}
