package tests

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"geoshard/geo"
)

// concKeys are the keys of the concurrent phase; no stream touches them.
// sharedKey's members are written by every worker, with ZADD GT or LT
// only: the highest (lowest) score wins whatever the order, so the final
// state is Redis's though the replies depend on the interleaving.
var (
	concKeys  = []string{"conc:a", "conc:b"}
	sharedKey = "conc:shared"
)

// concWorker is one client of the concurrent phase: it writes only its
// own members, through one node, so its commands commute with the other
// workers' and Redis given the same commands worker after worker must end
// in the same state, and answer every one of them the same.
type concWorker struct {
	id      int
	conn    *rawConn
	gen     *clusterGen
	rng     *rand.Rand
	cmds    [][]string
	shared  []bool // cmds[i] writes sharedKey: its reply is not compared
	replies [][]byte
	err     error
}

func (w *concWorker) member() string {
	return fmt.Sprintf("w%d:m%d", w.id, w.rng.IntN(60))
}

// next returns a command that touches only this worker's members.
func (w *concWorker) next() []string {
	key := concKeys[w.rng.IntN(len(concKeys))]
	if w.rng.IntN(100) < 15 {
		// Members s:m0..s:m29: GT for the even ones, LT for the odd, at
		// points around the borders, so the winner moves between shards.
		i := w.rng.IntN(30)
		p := w.gen.borderPoint()
		flag := []string{"GT", "LT"}[i%2]
		return []string{"ZADD", sharedKey, flag, "CH", strconv.FormatFloat(geo.Encode(p.lon, p.lat), 'f', -1, 64),
			fmt.Sprintf("s:m%d", i)}
	}
	switch n := w.rng.IntN(100); {
	case n < 55: // a move, usually across a border: a handoff
		args := []string{"GEOADD", key}
		switch w.rng.IntN(10) {
		case 0:
			args = append(args, "NX")
		case 1:
			args = append(args, "XX")
		case 2:
			args = append(args, "CH")
		}
		for i := 1 + w.rng.IntN(4); i > 0; i-- {
			p := w.gen.borderPoint()
			args = append(args, strconv.FormatFloat(p.lon, 'f', 6, 64), strconv.FormatFloat(p.lat, 'f', 6, 64), w.member())
		}
		return args
	case n < 70:
		args := []string{"ZREM", key}
		for i := 1 + w.rng.IntN(3); i > 0; i-- {
			args = append(args, w.member())
		}
		return args
	case n < 78:
		return []string{"ZADD", key, strconv.FormatUint(3479099956230698+w.rng.Uint64N(1<<34), 10), w.member()}
	case n < 85:
		return []string{"ZINCRBY", key, strconv.Itoa(w.rng.IntN(1<<20) - 1<<19), w.member()}
	case n < 93:
		return []string{"GEOPOS", key, w.member(), w.member()}
	default:
		return []string{"ZMSCORE", key, w.member(), w.member()}
	}
}

// run sends n commands through the worker's node in pipelined batches.
func (w *concWorker) run(n int) {
	const batch = 16
	for len(w.cmds) < n {
		var cmds [][]string
		for len(cmds) < batch && len(w.cmds)+len(cmds) < n {
			cmds = append(cmds, w.next())
		}
		replies, err := w.conn.pipeline(cmds)
		for _, c := range cmds {
			w.shared = append(w.shared, c[1] == sharedKey)
		}
		w.cmds = append(w.cmds, cmds...)
		w.replies = append(w.replies, replies...)
		if err != nil {
			w.err = err
			return
		}
	}
}

// concurrentPhase runs one worker through each node at once, then gives
// Redis the same commands worker after worker: every reply, and then the
// keys through every node, must be Redis's.
func (s *clusterStream) concurrentPhase(seed uint64, n int) {
	workers := make([]*concWorker, len(s.nodes))
	for i, node := range s.nodes {
		workers[i] = &concWorker{id: i, conn: node, gen: newClusterGen(seed + uint64(i)),
			rng: rand.New(rand.NewPCG(seed, uint64(i)))}
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(n)
		}()
	}
	wg.Wait()
	for _, w := range workers {
		if w.err != nil {
			s.t.Fatalf("worker %d through %s: %v", w.id, w.conn.name, w.err)
		}
		want, err := s.ref.pipeline(w.cmds)
		if err != nil {
			s.t.Fatalf("redis, worker %d's commands: %v", w.id, err)
		}
		for i, args := range w.cmds {
			if !w.shared[i] && !sameReply(args, want[i], w.replies[i]) {
				s.mismatches++
				s.t.Errorf("concurrent phase, seed %d: worker %d's command #%d through %s: %s\n  redis: %s\n  %s: %s",
					seed, w.id, i, w.conn.name, quoteCommand(args), quoteReply(want[i], 300), w.conn.name,
					quoteReply(w.replies[i], 300))
				if s.mismatches >= diffMaxMismatches {
					s.t.FailNow()
				}
			}
		}
	}
	for _, k := range append(concKeys, sharedKey) {
		s.compareKey(seed, k)
	}
}
