package tests

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clusterGenLimit bounds one stream's wall time: on a loaded machine the
// stream stops early (and says how far it got) rather than run for ever;
// the comparison itself never depends on speed.
const clusterGenLimit = 150 * time.Second

// TestClusterGenerated sends a seeded random stream of geo and sorted-set
// commands to redis-server and, command by command, to a randomly chosen
// node of a 3-node cluster (replicas 1, a 3 x 3 grid of shards over
// Amsterdam plus the catch-all, so each node holds several shards and
// members near the grid's borders move between shards and nodes). Every
// reply must equal Redis's to the byte, and at the end every node must
// show every key as Redis does. Replay a failure with
// GEOSHARD_DIFF_SEEDS=<seed> (GEOSHARD_DIFF_CMDS sets the length).
func TestClusterGenerated(t *testing.T) {
	ref := startRedis(t)
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--fanout-timeout", "5000")
	tableStill(t, tc, 2*time.Second, 60*time.Second)
	n := diffCommands(t, 3000)
	for i, seed := range diffSeeds(t, 41, 42) {
		resp3 := i%2 == 1
		t.Run(streamName(seed, resp3), func(t *testing.T) {
			s := newClusterStream(t, ref, tc, resp3)
			s.run(seed, n)
			s.compareKeys(seed)
			s.logHandoffs()
		})
	}
	for _, seed := range diffSeeds(t, 41) {
		t.Run(fmt.Sprintf("concurrent/seed=%d", seed), func(t *testing.T) {
			s := newClusterStream(t, ref, tc, false)
			s.concurrentPhase(seed, max(n/5, 100))
			s.logHandoffs()
		})
	}
}

// clusterStream is one stream's connections: Redis first, then a, b, c.
type clusterStream struct {
	t     *testing.T
	tc    *testCluster
	ref   *rawConn
	nodes []*rawConn
	resp3 bool
	// history is every command sent, with the node it went to.
	history    []string
	mismatches int
}

func newClusterStream(t *testing.T, ref *serverProc, tc *testCluster, resp3 bool) *clusterStream {
	s := &clusterStream{t: t, tc: tc, ref: dialRaw(t, ref), resp3: resp3}
	for _, id := range []string{"a", "b", "c"} {
		s.nodes = append(s.nodes, dialRaw(t, tc.nodes[id].proc))
	}
	for _, c := range append([]*rawConn{s.ref}, s.nodes...) {
		if resp3 {
			if r, err := c.do("HELLO", "3"); err != nil || len(r) == 0 || r[0] != '%' {
				t.Fatalf("%s: HELLO 3 answered %s, err %v", c.name, quoteReply(r, 300), err)
			}
		}
	}
	// FLUSHALL through one node empties the cluster: the stream before
	// this one leaves nothing behind.
	for _, c := range []*rawConn{s.ref, s.nodes[0]} {
		if r := c.mustDo(t, "FLUSHALL"); string(r) != "+OK\r\n" {
			t.Fatalf("%s: FLUSHALL answered %s", c.name, quoteReply(r, 300))
		}
	}
	return s
}

// run sends n commands of the seed's stream, each to Redis and to one
// node, and compares the replies.
func (s *clusterStream) run(seed uint64, n int) {
	gen := newClusterGen(seed)
	route := rand.New(rand.NewPCG(seed, 0x5eed))
	st := &streamStats{}
	begin := time.Now()
	for i := 0; i < n; i++ {
		if time.Since(begin) > clusterGenLimit {
			s.t.Logf("stopped after %d of %d commands: %v passed", i, n, clusterGenLimit)
			break
		}
		args := gen.next()
		node := s.nodes[route.IntN(len(s.nodes))]
		want, got, err := s.both(node, args)
		if err != nil {
			s.t.Fatalf("seed %d command #%d %s via %s: %v\nlast commands:\n%s",
				seed, i, quoteCommand(args), node.name, err, s.last(10))
		}
		s.history = append(s.history, node.name+" "+quoteCommand(args))
		st.add(args, want)
		if !sameReply(args, want, got) {
			s.report(seed, i, args, node.name, want, got)
			if s.mismatches >= diffMaxMismatches {
				s.t.Fatalf("%d mismatches: not comparing this stream further", s.mismatches)
			}
		}
	}
	s.t.Logf("%d commands in %v, %d errors, %d successful searches (%d non-empty), by name %v",
		st.total, time.Since(begin).Round(time.Millisecond), st.errors, st.searches, st.nonEmpty, st.commands)
	if st.searches > 300 && st.nonEmpty*5 < st.searches*2 {
		s.t.Errorf("only %d of %d successful searches found anything: the data and searches do not meet",
			st.nonEmpty, st.searches)
	}
}

// both sends args to Redis and to node at once and returns their replies.
func (s *clusterStream) both(node *rawConn, args []string) (want, got []byte, err error) {
	var wg sync.WaitGroup
	var nodeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		got, nodeErr = node.do(args...)
	}()
	want, err = s.ref.do(args...)
	wg.Wait()
	if err == nil {
		err = nodeErr
	}
	return want, got, err
}

func (s *clusterStream) last(n int) string {
	var sb strings.Builder
	for i := max(0, len(s.history)-n); i < len(s.history); i++ {
		fmt.Fprintf(&sb, "    #%d %s\n", i, s.history[i])
	}
	return sb.String()
}

func (s *clusterStream) report(seed uint64, i int, args []string, node string, want, got []byte) {
	s.mismatches++
	off := firstDiff(want, got)
	s.t.Errorf("reply differs: seed %d, %s, command #%d through %s\n  command: %s\n  redis: %s\n  %s: %s\n"+
		"  first difference at byte %d (lengths %d and %d)\n  last commands before it:\n%s"+
		"  reproduce: GEOSHARD_DIFF_SEEDS=%d GEOSHARD_DIFF_CMDS=%d go test ./tests -count=1 -run '^%s$'",
		seed, protoName(s.resp3), i, node, quoteCommand(args), quoteWindow(want, off), node, quoteWindow(got, off),
		off, len(want), len(got), s.last(8), seed, i+1, strings.SplitN(s.t.Name(), "/", 2)[0])
}

// compareKeys checks every key of the streams through every node
// against Redis, so a copy left behind on one node (a lost handoff
// delete, a stale replica) shows even when no command of the stream
// happened to look at it.
func (s *clusterStream) compareKeys(seed uint64) {
	for _, k := range append(append(append([]string{}, heavyKeys...), lightKeys...), dstKeys...) {
		s.compareKey(seed, k)
	}
}

// compareKey compares key k through every node with Redis: the whole
// sorted set with scores, its size, its type, and searches over the grid
// and astride two of its borders (near a border a search asks several
// shards and merges).
func (s *clusterStream) compareKey(seed uint64, k string) {
	for _, args := range [][]string{
		{"ZRANGE", k, "0", "-1", "WITHSCORES"},
		{"ZCARD", k},
		{"TYPE", k},
		{"GEOSEARCH", k, "FROMLONLAT", "4.925", "52.355", "BYBOX", "40", "40", "km", "ASC", "WITHDIST"},
		{"GEOSEARCH", k, "FROMLONLAT", "4.85", "52.32", "BYRADIUS", "1500", "m", "WITHCOORD"},
		{"GEORADIUS", k, "5.0", "52.39", "3", "km", "DESC", "COUNT", "7"},
	} {
		want := s.ref.mustDo(s.t, args...)
		for _, node := range s.nodes {
			got := node.mustDo(s.t, args...)
			if !sameReply(args, want, got) {
				off := firstDiff(want, got)
				s.t.Errorf("final state differs: seed %d, %s through %s\n  redis: %s\n  %s: %s\n  last commands:\n%s",
					seed, quoteCommand(args), node.name, quoteWindow(want, off), node.name,
					quoteWindow(got, off), s.last(8))
			}
		}
	}
}

var handoffsField = regexp.MustCompile(`handoffs_out=(\d+)`)

// logHandoffs says how many members the stream moved between shards, and
// fails if none: then the stream would not test what it is meant to.
func (s *clusterStream) logHandoffs() {
	total := 0
	for _, node := range s.nodes {
		r := node.mustDo(s.t, "INFO", "shards")
		for _, m := range handoffsField.FindAllSubmatch(r, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			total += n
		}
	}
	s.t.Logf("handoffs so far (all nodes): %d", total)
	if total == 0 {
		s.t.Errorf("no member changed shards: the stream does not exercise handoffs")
	}
}
