package router

import (
	"sync"

	"geoshard/geo"
	"geoshard/shard"
)

// A shard written from two cores at once costs more than from one: every
// insert writes the counts along its B-tree path and the table and slab
// lines it touches, and with writers on both cores those lines move from
// one core's cache to the other's on most inserts. A bulk load through 4
// connections spent 20 % more CPU a member than with one writer
// (docs/BENCHMARKS.md, session 16). So a single node runs writes of many
// members one after the other, in a queue per shard, on whatever
// goroutine drains it: a load's inserts stay on one core while its
// connections read and parse the next commands on the other.

// bulkMin is the fewest members a write takes to a queue: waiting in one
// costs a goroutine switch or two, a few microseconds, which a ping of one
// driver must not pay.
const bulkMin = 16

// bulkQueue runs the bulk writes of the members of one shard's region in
// the order they came, on one goroutine while there are any.
type bulkQueue struct {
	mu      sync.Mutex
	jobs    []*bulkJob
	running bool // a goroutine is draining jobs
}

type bulkJob struct {
	write    func()
	done     chan struct{}
	panicked any
}

// addLocal is TryAddMany on a single node. The queue is the first
// member's shard's: the members of one command are mostly of one region,
// and a member of another is still written safely, under that shard's
// own locks, only from the other core now and then.
func (r *Router) addLocal(k shard.Key, members []string, scores []float64, f AddFlags) (added, changed int) {
	write := func() {
		for i, m := range members {
			a, c := r.Add(k, m, scores[i], f)
			added, changed = added+b2i(a), changed+b2i(c)
		}
	}
	if len(members) < bulkMin {
		write()
		return added, changed
	}
	lon, lat := geo.Decode(scores[0])
	r.bulk[r.regions.Locate(lon, lat)].run(write)
	return added, changed
}

// run writes in the queue and returns when it is written. A panic in
// write (a bug) is raised again here, in the command's goroutine, whose
// guard answers it with an error instead of the server going down.
func (q *bulkQueue) run(write func()) {
	j := &bulkJob{write: write, done: make(chan struct{})}
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.drain()
	}
	<-j.done
	if j.panicked != nil {
		panic(j.panicked)
	}
}

// drain runs jobs until none is left. It ends there rather than waiting
// for more: an idle server keeps no goroutine per shard, and the next
// job starts one, where its connection runs (a microsecond).
func (q *bulkQueue) drain() {
	var batch []*bulkJob
	for {
		q.mu.Lock()
		batch, q.jobs = q.jobs, batch[:0]
		if len(batch) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for i, j := range batch {
			j.runOnce()
			batch[i] = nil
		}
	}
}

func (j *bulkJob) runOnce() {
	defer close(j.done)
	defer func() { j.panicked = recover() }()
	j.write()
}
