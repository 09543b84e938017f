package tests

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"geoshard/resp"
)

// concKeys are the keys of the concurrent phase; no stream touches them.
// incrKey's members are incremented by every worker (ZINCRBY), which
// adds up in any order, so the final state is Redis's though the replies
// depend on the interleaving.
var (
	concKeys = []string{"conc:a", "conc:b"}
	incrKey  = "conc:incr"
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
	shared  []bool // cmds[i] writes incrKey: its reply is not compared
	replies [][]byte
	err     error
}

func (w *concWorker) member() string {
	return fmt.Sprintf("w%d:m%d", w.id, w.rng.IntN(60))
}

// next returns a command that touches only this worker's members.
func (w *concWorker) next() []string {
	key := concKeys[w.rng.IntN(len(concKeys))]
	if w.rng.IntN(100) < 10 {
		// Steps of 1 and 3 keep the member in its shard: a sum that moves
		// it is written unconditionally (router/incr.go), as are GT/LT
		// writes that move it, and two nodes' such writes can lose one
		// (TestClusterZaddGTThroughThreeNodes, known), so neither is here.
		step := []string{"1", "3"}[w.rng.IntN(2)]
		return []string{"ZINCRBY", incrKey, step, fmt.Sprintf("i:m%d", w.rng.IntN(10))}
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
			w.shared = append(w.shared, c[1] == incrKey)
		}
		w.cmds = append(w.cmds, cmds...)
		w.replies = append(w.replies, replies...)
		if err != nil {
			w.err = err
			return
		}
	}
}

// concurrentPhase runs two workers through each node at once (a node's
// clients share its messages to the others) while searches check that no
// answer names a member twice or fails, then gives Redis the same
// commands worker after worker: every reply, and then the keys through
// every node, must be Redis's.
func (s *clusterStream) concurrentPhase(seed uint64, n int) {
	workers := make([]*concWorker, 2*len(s.nodes))
	for i := range workers {
		conn := s.nodes[i%len(s.nodes)]
		if i >= len(s.nodes) {
			conn = dialRaw(s.t, s.tc.nodes[string(rune('a'+i%len(s.nodes)))].proc)
		}
		workers[i] = &concWorker{id: i, conn: conn, gen: newClusterGen(seed + uint64(i)),
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
	done := make(chan struct{})
	searched := make(chan []string)
	go func() { searched <- s.searchWhile(done) }()
	wg.Wait()
	close(done)
	if bad := <-searched; len(bad) > 0 {
		s.t.Errorf("concurrent phase, seed %d: %d searches went wrong while members moved, the first:\n%s",
			seed, len(bad), strings.Join(bad[:min(len(bad), 5)], "\n"))
	}
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
	for _, k := range append(concKeys, incrKey) {
		s.compareKey(seed, k)
	}
}

// searchWhile searches the concurrent phase's keys through each node in
// turn, on connections of its own, until done (5,000 searches at most),
// and returns what went wrong: an error, or a member named twice (a
// handoff's two copies not deduplicated).
func (s *clusterStream) searchWhile(done <-chan struct{}) []string {
	var conns []*rawConn
	for _, id := range []string{"a", "b", "c"} {
		conns = append(conns, dialRaw(s.t, s.tc.nodes[id].proc))
	}
	var bad []string
	keys := append(append([]string{}, concKeys...), incrKey)
	for i := 0; i < 5000; i++ {
		select {
		case <-done:
			s.t.Logf("%d searches while the workers wrote", i)
			return bad
		default:
		}
		c := conns[i%len(conns)]
		args := []string{"GEOSEARCH", keys[i%len(keys)], "FROMLONLAT", "4.925", "52.355", "BYBOX", "60", "60", "km"}
		r, err := c.do(args...)
		if err != nil {
			return append(bad, fmt.Sprintf("%s via %s: %v", quoteCommand(args), c.name, err))
		}
		_, els, err := resp.SplitReply(r)
		if err != nil || len(r) == 0 || r[0] != '*' {
			bad = append(bad, fmt.Sprintf("%s via %s: %s", quoteCommand(args), c.name, quoteReply(r, 300)))
			continue
		}
		seen := map[string]bool{}
		for _, e := range els {
			if seen[string(e)] {
				bad = append(bad, fmt.Sprintf("%s via %s: %q twice", quoteCommand(args), c.name, e))
			}
			seen[string(e)] = true
		}
	}
	return bad
}
