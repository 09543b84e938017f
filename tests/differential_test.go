package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"geoshard/resp"
)

const (
	diffBatch         = 64 // commands pipelined per round trip
	diffMaxMismatches = 5  // per target and stream; later ones are usually echoes
)

// diffSeeds returns the seeds to run: the defaults, or GEOSHARD_DIFF_SEEDS
// (comma separated) to reproduce or explore.
func diffSeeds(t *testing.T, defaults ...uint64) []uint64 {
	s := os.Getenv("GEOSHARD_DIFF_SEEDS")
	if s == "" {
		return defaults
	}
	var seeds []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("GEOSHARD_DIFF_SEEDS=%q: %v", s, err)
		}
		seeds = append(seeds, n)
	}
	return seeds
}

// diffCommands is the stream length: GEOSHARD_DIFF_CMDS, or the default
// (a third of it with -short).
func diffCommands(t *testing.T, def int) int {
	if s := os.Getenv("GEOSHARD_DIFF_CMDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("GEOSHARD_DIFF_CMDS=%q is not a positive integer", s)
		}
		return n
	}
	if testing.Short() {
		return def / 3
	}
	return def
}

// TestDifferentialRedisVsRedis runs the random streams against two
// redis-servers. Zero differences shows the streams and the comparison are
// deterministic, so any difference geoshard shows is geoshard's. The second
// server keeps every sorted set in a skiplist instead of a listpack, which
// shows replies do not depend on how a server stores a key.
func TestDifferentialRedisVsRedis(t *testing.T) {
	ref := startRedis(t)
	other := startRedis(t, "--zset-max-listpack-entries", "0")
	other.name = "redis-skiplist"
	n := diffCommands(t, 3000)
	for _, seed := range diffSeeds(t, 1, 2) {
		for _, resp3 := range []bool{false, true} {
			t.Run(streamName(seed, resp3), func(t *testing.T) {
				runStream(t, seed, resp3, n, ref, []*serverProc{other})
			})
		}
	}
}

// TestDifferentialGeoshard sends the same random streams to redis-server,
// to geoshard on its embedded world map and to geoshard on an adversarial
// map of ~500 small shards with a 500 m margin: replies must be identical
// to the byte (issue 3: "replies never depend on the region map").
func TestDifferentialGeoshard(t *testing.T) {
	ref := startRedis(t)
	world := startGeoshardPlain(t, "geoshard-world", "--position-ttl", "0", "--fanout-timeout", "5000")
	mapPath := filepath.Join(t.TempDir(), "adversarial.geojson")
	if err := writeAdversarialMap(mapPath, dataAreas); err != nil {
		t.Fatal(err)
	}
	adv := startGeoshardPlain(t, "geoshard-adversarial", "--regions", mapPath,
		"--position-ttl", "0", "--fanout-timeout", "5000")
	n := diffCommands(t, 3000)
	for _, seed := range diffSeeds(t, 11, 12, 13, 14, 15, 16) {
		for _, resp3 := range []bool{false, true} {
			t.Run(streamName(seed, resp3), func(t *testing.T) {
				runStream(t, seed, resp3, n, ref, []*serverProc{world, adv})
			})
		}
	}
}

// TestDifferentialFineMap runs the streams on a map of about 1,600 small
// areas, the kind of map issue 11 found searches slow on: replies must
// still equal Redis's to the byte.
func TestDifferentialFineMap(t *testing.T) {
	ref := startRedis(t)
	mapPath := filepath.Join(t.TempDir(), "fine.geojson")
	if err := writeFineMap(mapPath, dataAreas); err != nil {
		t.Fatal(err)
	}
	fine := startGeoshardPlain(t, "geoshard-fine", "--regions", mapPath, "--position-ttl", "0")
	if n, err := strconv.Atoi(infoField(t, dialRaw(t, fine), "shards", "shards")); err != nil || n < 1500 {
		t.Fatalf("the fine map has %d shards (%v)", n, err)
	}
	n := diffCommands(t, 3000)
	for _, seed := range diffSeeds(t, 21, 22) {
		for _, resp3 := range []bool{false, true} {
			t.Run(streamName(seed, resp3), func(t *testing.T) {
				runStream(t, seed, resp3, n, ref, []*serverProc{fine})
			})
		}
	}
}

func streamName(seed uint64, resp3 bool) string {
	if resp3 {
		return fmt.Sprintf("seed=%d/resp3", seed)
	}
	return fmt.Sprintf("seed=%d/resp2", seed)
}

// diffTarget is one server under comparison within a stream.
type diffTarget struct {
	conn       *rawConn
	mismatches int
	dead       bool // stopped comparing: I/O error or too many mismatches
	replies    [][]byte
	err        error
}

// runStream sends n generated commands to ref and every other server and
// compares each reply with ref's.
func runStream(t *testing.T, seed uint64, resp3 bool, n int, ref *serverProc, others []*serverProc) {
	all := append([]*serverProc{ref}, others...)
	targets := make([]*diffTarget, len(all))
	for i, p := range all {
		targets[i] = &diffTarget{conn: dialRaw(t, p)}
	}
	setup := [][]string{{"FLUSHALL"}}
	if resp3 {
		// HELLO's reply names the server and the client id: not compared.
		for _, tg := range targets {
			r, err := tg.conn.do("HELLO", "3")
			if err != nil || len(r) == 0 || r[0] != '%' {
				t.Fatalf("%s: HELLO 3 answered %s, err %v", tg.conn.name, quoteReply(r, 300), err)
			}
		}
	}
	for _, args := range setup {
		for _, tg := range targets {
			if r := tg.conn.mustDo(t, args...); string(r) != "+OK\r\n" {
				t.Fatalf("%s: %s answered %s", tg.conn.name, quoteCommand(args), quoteReply(r, 300))
			}
		}
	}

	gen := newCmdGen(seed)
	var history [][]string
	st := &streamStats{}
	for sent := 0; sent < n; {
		batch := make([][]string, 0, diffBatch)
		for len(batch) < diffBatch && sent+len(batch) < n {
			batch = append(batch, gen.next())
		}
		exchange(targets, batch)
		refT := targets[0]
		if refT.err != nil {
			t.Fatalf("reference %s failed at commands %d..%d: %v", refT.conn.name, sent, sent+len(batch)-1, refT.err)
		}
		for i, args := range batch {
			compareReplies(t, seed, resp3, sent+i, i, args, targets, append(history, batch[:i]...))
		}
		for i, args := range batch {
			st.add(args, refT.replies[i])
		}
		history = append(history, batch...)
		sent += len(batch)
		if allDead(targets[1:]) {
			break
		}
	}
	st.check(t, n)
}

// compareReplies compares reply i of every live target with the
// reference's. Targets that answered the same wrong bytes share one report.
func compareReplies(t *testing.T, seed uint64, resp3 bool, index, i int, args []string, targets []*diffTarget, history [][]string) {
	t.Helper()
	refT := targets[0]
	var wrong []*diffTarget
	for _, tg := range targets[1:] {
		if tg.dead {
			continue
		}
		if i >= len(tg.replies) {
			t.Errorf("%s stopped answering: seed %d %s, command #%d: %s\nerror: %v\nlast commands:\n%s",
				tg.conn.name, seed, protoName(resp3), index, quoteCommand(args), tg.err, lastCommands(history, 10))
			tg.dead = true
			continue
		}
		if !sameReply(args, refT.replies[i], tg.replies[i]) {
			wrong = append(wrong, tg)
		}
	}
	for len(wrong) > 0 {
		group := []*diffTarget{wrong[0]}
		var rest []*diffTarget
		for _, tg := range wrong[1:] {
			if bytes.Equal(tg.replies[i], wrong[0].replies[i]) {
				group = append(group, tg)
			} else {
				rest = append(rest, tg)
			}
		}
		wrong = rest
		t.Errorf("%s", mismatchReport(t.Name(), seed, resp3, index, args, refT.conn.name, refT.replies[i], group, i, history))
		for _, tg := range group {
			tg.mismatches++
			if tg.mismatches >= diffMaxMismatches {
				t.Errorf("%s: %d mismatches in this stream, not comparing it further", tg.conn.name, tg.mismatches)
				tg.dead = true
			}
		}
	}
}

// exchange sends batch to every live target in parallel and collects the
// replies; each target's error, if any, is kept with the replies it got.
func exchange(targets []*diffTarget, batch [][]string) {
	var wg sync.WaitGroup
	for _, tg := range targets {
		if tg.dead {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tg.replies, tg.err = tg.conn.pipeline(batch)
		}()
	}
	wg.Wait()
}

func allDead(ts []*diffTarget) bool {
	for _, t := range ts {
		if !t.dead {
			return false
		}
	}
	return true
}

func protoName(resp3 bool) string {
	if resp3 {
		return "RESP3"
	}
	return "RESP2"
}

func mismatchReport(test string, seed uint64, resp3 bool, index int, args []string, refName string, a []byte,
	group []*diffTarget, i int, history [][]string) string {
	b := group[0].replies[i]
	names := make([]string, len(group))
	for j, tg := range group {
		names[j] = tg.conn.name
	}
	off := firstDiff(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "reply differs: seed %d, %s, command #%d\n", seed, protoName(resp3), index)
	fmt.Fprintf(&sb, "  command: %s\n", quoteCommand(args))
	fmt.Fprintf(&sb, "  %s: %s\n", refName, quoteWindow(a, off))
	fmt.Fprintf(&sb, "  %s: %s\n", strings.Join(names, ", "), quoteWindow(b, off))
	fmt.Fprintf(&sb, "  first difference at byte %d (lengths %d and %d)\n", off, len(a), len(b))
	fmt.Fprintf(&sb, "  last commands before it:\n%s", lastCommands(history, 8))
	fmt.Fprintf(&sb, "  reproduce: GEOSHARD_DIFF_SEEDS=%d go test ./tests -count=1 -run '^%s$'", seed, strings.ReplaceAll(test, "/", "$/^"))
	return sb.String()
}

// quoteWindow shows a reply around byte off, so long replies stay readable.
func quoteWindow(b []byte, off int) string {
	const before, after = 200, 400
	if len(b) <= before+after {
		return strconv.Quote(string(b))
	}
	lo, hi := max(0, off-before), min(len(b), off+after)
	s := strconv.Quote(string(b[lo:hi]))
	if lo > 0 {
		s = fmt.Sprintf("[%d bytes]...", lo) + s
	}
	if hi < len(b) {
		s += fmt.Sprintf("...[%d bytes]", len(b)-hi)
	}
	return s
}

func lastCommands(history [][]string, n int) string {
	var sb strings.Builder
	start := max(0, len(history)-n)
	for i := start; i < len(history); i++ {
		fmt.Fprintf(&sb, "    #%d %s\n", i, quoteCommand(history[i]))
	}
	return sb.String()
}

// sameReply compares two raw replies to cmd. They must be identical except
// where Redis itself gives no fixed answer: KEYS returns keys in hash-table
// order (compared as a set), and TTL/PTTL count down while the servers run
// (compared with a tolerance; the negative codes must match exactly).
func sameReply(cmd []string, a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	switch strings.ToUpper(cmd[0]) {
	case "KEYS":
		return sameAsSet(a, b)
	case "TTL":
		return closeInts(a, b, 2)
	case "PTTL":
		return closeInts(a, b, 2000)
	}
	return false
}

func sameAsSet(a, b []byte) bool {
	ha, ea, err1 := resp.SplitReply(a)
	hb, eb, err2 := resp.SplitReply(b)
	if err1 != nil || err2 != nil || !bytes.Equal(ha, hb) {
		return false
	}
	slices.SortFunc(ea, bytes.Compare)
	slices.SortFunc(eb, bytes.Compare)
	return slices.EqualFunc(ea, eb, bytes.Equal)
}

func closeInts(a, b []byte, tol int64) bool {
	x, ok1 := parseIntReply(a)
	y, ok2 := parseIntReply(b)
	if !ok1 || !ok2 || x < 0 || y < 0 {
		return false
	}
	d := x - y
	return d <= tol && d >= -tol
}

func parseIntReply(b []byte) (int64, bool) {
	if len(b) < 4 || b[0] != ':' || !bytes.HasSuffix(b, []byte("\r\n")) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[1:len(b)-2]), 10, 64)
	return n, err == nil
}

// streamStats checks that a stream exercised what it is meant to: a
// realistic share of errors and searches that actually find members.
type streamStats struct {
	total, errors      int
	searches, nonEmpty int
	commands           map[string]int
}

func (s *streamStats) add(args []string, reply []byte) {
	if s.commands == nil {
		s.commands = map[string]int{}
	}
	name := strings.ToUpper(args[0])
	s.commands[name]++
	s.total++
	if isErrorReply(reply) {
		s.errors++
		return
	}
	if strings.HasPrefix(name, "GEOSEARCH") || strings.HasPrefix(name, "GEORADIUS") {
		s.searches++
		if !bytes.Equal(reply, []byte("*0\r\n")) && !bytes.Equal(reply, []byte(":0\r\n")) {
			s.nonEmpty++
		}
	}
}

func (s *streamStats) check(t *testing.T, want int) {
	t.Helper()
	if s.total < want {
		return // the stream was cut short and has already failed
	}
	errShare := float64(s.errors) / float64(s.total)
	t.Logf("%d commands, %.1f%% errors, %d successful searches (%d non-empty)",
		s.total, 100*errShare, s.searches, s.nonEmpty)
	if s.total >= 500 && (errShare < 0.08 || errShare > 0.35) {
		t.Errorf("stream has %.1f%% error replies; the generator should keep it near 20%%", 100*errShare)
	}
	if s.searches > 50 && s.nonEmpty*5 < s.searches*2 {
		t.Errorf("only %d of %d successful searches found anything: the data and searches do not meet", s.nonEmpty, s.searches)
	}
}
