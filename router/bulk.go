package router

import (
	"slices"
	"sync"

	"geoshard/geo"
	"geoshard/shard"
)

// A shard written from two cores at once costs more than from one: every
// insert writes the counts along its B-tree path and the table and slab
// lines it touches, and with writers on both cores those lines move from
// one core's cache to the other's on most inserts. A bulk load through 4
// connections spent 20 % more CPU a member than with one writer
// (docs/BENCHMARKS.md, session 16). So on a single node, writes of many
// members to one shard run one at a time: a write that finds none running
// runs at once in its own goroutine, and while it runs, others wait in a
// queue, which it writes too before it returns (it leads). A load's
// inserts then stay on one core while the waiting connections' next
// commands are read and parsed on the other. A write that waited is
// handed back to its goroutine when written, which costs a switch or
// two; a client writing alone pays none.

// bulkMin is the fewest members a write takes to a queue: a ping of one
// driver pays nothing for it.
const bulkMin = 16

// leadMembers bounds how many members a leader writes (its own first) before
// it hands the queue to the first waiter, so that its own client does not
// wait behind the others' writes for long: about 10 ms at a 1M load's
// 2.5 µs a member.
const leadMembers = 4096

// bulkQueue runs the bulk writes of one shard's region one at a time.
type bulkQueue struct {
	mu      sync.Mutex
	running bool // a goroutine leads the queue
	waiting []*bulkJob
}

type bulkJob struct {
	write    func()
	n        int // members
	done     chan struct{}
	lead     bool // handed the queue: the goroutine writes it itself
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
	r.bulk[r.regions.Locate(lon, lat)].run(len(members), write)
	return added, changed
}

// run writes n members with write and returns once they are written. A
// panic in write (a bug) is raised again here, in the command's
// goroutine, whose guard answers it with an error instead of the server
// going down.
func (q *bulkQueue) run(n int, write func()) {
	j := &bulkJob{write: write, n: n}
	q.mu.Lock()
	if q.running {
		j.done = make(chan struct{})
		q.waiting = append(q.waiting, j)
		q.mu.Unlock()
		<-j.done
		if !j.lead {
			j.raise()
			return
		}
	} else {
		q.running = true
		q.mu.Unlock()
	}
	j.runSafe()
	q.lead(n)
	j.raise()
}

// lead writes the waiting jobs, after its own of written members, until
// none waits or leadMembers are written; then it hands the queue to the
// first waiter.
func (q *bulkQueue) lead(written int) {
	for {
		q.mu.Lock()
		switch {
		case len(q.waiting) == 0:
			q.running = false
			q.mu.Unlock()
			return
		case written >= leadMembers:
			next := q.waiting[0]
			q.waiting = slices.Delete(q.waiting, 0, 1)
			q.mu.Unlock()
			next.lead = true
			close(next.done)
			return
		}
		batch := q.waiting
		q.waiting = nil
		q.mu.Unlock()
		for _, j := range batch {
			j.runSafe()
			written += j.n
			close(j.done)
		}
	}
}

func (j *bulkJob) runSafe() {
	defer func() { j.panicked = recover() }()
	j.write()
}

func (j *bulkJob) raise() {
	if j.panicked != nil {
		panic(j.panicked)
	}
}
