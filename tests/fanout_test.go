package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"geoshard/shard"
)

// rssKB reads a process's resident set from /proc.
func rssKB(t *testing.T, p *serverProc) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// writeGridMap writes a generated map of cols x rows areas (and the
// catch-all) over the box to a file and returns its path.
func writeGridMap(t *testing.T, minLon, minLat, maxLon, maxLat float64, cols, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("grid-%dx%d.geojson", cols, rows))
	if err := os.WriteFile(path, shard.GridMap(minLon, minLat, maxLon, maxLat, cols, rows, 200).GeoJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// On a map of 5,001 areas, a world-wide search leaves memory where it was
// and INFO shards stays small (issue 15 #10: +550 MB and a 780 MB INFO).
func TestInfoBoundedOnManyAreas(t *testing.T) {
	gs := startGeoshard(t, "geoshard-5001", "--regions", writeGridMap(t, -10, 35, 30, 60, 100, 50))
	rc := dialRaw(t, gs)
	rc.mustDo(t, "GEOADD", "k", "4.9", "52.37", "a", "13.4", "52.5", "b", "151.2", "-33.86", "c")
	// A key too big to be searched in its holders' shards only, ten
	// members in each of a block of 20 by 10 areas (too many per area to
	// be read from the owner table instead): a world search of it asks
	// those 200 shards and counts the ~700 borders between them.
	big := []string{"GEOADD", "big"}
	for i := range 2000 {
		c, j := i/10, i%10
		big = append(big, strconv.FormatFloat(-10+float64(c%20)*0.4+0.05+float64(j)*0.03, 'f', 3, 64),
			strconv.FormatFloat(35+float64(c/20)*0.5+0.25, 'f', 3, 64), "m"+strconv.Itoa(i))
	}
	rc.mustDo(t, big...)
	rc.mustDo(t, "INFO", "shards") // warm up: what INFO costs itself is not what we look for
	before := rssKB(t, gs)
	for _, q := range [][]string{
		{"GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYBOX", "40000", "20000", "km", "ASC"},
		{"GEOSEARCH", "k", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "5000", "km", "ASC"},
		{"GEORADIUS", "k", "10", "45", "20000", "km", "WITHDIST"},
		{"GEOSEARCH", "big", "FROMLONLAT", "0", "0", "BYBOX", "40000", "20000", "km"},
	} {
		if r := string(rc.mustDo(t, q...)); !strings.HasPrefix(r, "*") {
			t.Fatalf("%v: %q", q, r)
		}
	}
	info := string(rc.mustDo(t, "INFO", "shards"))
	if len(info) > 256<<10 {
		t.Errorf("INFO shards is %d KB", len(info)>>10)
	}
	for _, want := range []string{"shards:5001\r\n", "shards_not_listed:4745\r\n", "borders_not_listed:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO shards lacks %q", want)
		}
	}
	if grew := rssKB(t, gs) - before; grew > 64<<10 {
		t.Errorf("three searches and INFO grew the server by %d MB", grew>>10)
	}
}

// Under CPU contention, with a fan-out deadline of 1 ms, every reply of a
// single-node server equals Redis's: a local shard is never left out as a
// slow neighbour (issue 15 #5: 15 % of world-wide searches came back
// short, with no error).
func TestContendedSearchExact(t *testing.T) {
	rs := startRedis(t)
	// Built without -race: the contention under test is the CPU's.
	gs := startGeoshardPlain(t, "geoshard-contended", "--fanout-timeout", "1")
	const members = 10_000
	rng := rand.New(rand.NewPCG(5, 15))
	var cmds [][]string
	for i := 0; i < members; i += 500 {
		cmd := []string{"GEOADD", "fleet"}
		for j := i; j < i+500; j++ {
			cmd = append(cmd, strconv.FormatFloat(-179+rng.Float64()*358, 'f', 5, 64),
				strconv.FormatFloat(-84+rng.Float64()*168, 'f', 5, 64), "drv:"+strconv.Itoa(j))
		}
		cmds = append(cmds, cmd)
	}
	for _, p := range []*serverProc{rs, gs} {
		if _, err := dialRaw(t, p).pipeline(cmds); err != nil {
			t.Fatal(err)
		}
	}
	queries := make([][]string, 12)
	want := make([]string, len(queries))
	ref := dialRaw(t, rs)
	for i := range queries {
		queries[i] = []string{"GEOSEARCH", "fleet", "FROMMEMBER", "drv:" + strconv.Itoa(i*811%members), "BYRADIUS", "20000", "km", "DESC", "COUNT", "5", "WITHDIST"}
		want[i] = string(ref.mustDo(t, queries[i]...))
	}
	const workers, rounds = 6, 3
	var wg sync.WaitGroup
	var mu sync.Mutex
	var diffs []string
	deadline := time.Now().Add(60 * time.Second)
	for w := range workers {
		rc := dialRaw(t, gs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < rounds && time.Now().Before(deadline); round++ {
				for i, q := range queries {
					got, err := rc.do(q...)
					if err != nil || string(got) != want[i] {
						mu.Lock()
						diffs = append(diffs, fmt.Sprintf("worker %d query %d: %q (err %v), want %q", w, i, got, err, want[i]))
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(diffs) > 0 {
		t.Fatalf("%d of %d replies differ from Redis; first: %s", len(diffs), workers*rounds*len(queries), diffs[0])
	}
	if d := infoField(t, dialRaw(t, gs), "shards", "degraded_searches"); d != "0" {
		t.Errorf("degraded_searches:%s on a single node", d)
	}
}

// CONFIG SET regions with 200,000 members holds no command long: the
// members move in the background, searches meanwhile answer as before,
// INFO shows the move, and a second reload during it is refused (issue
// 11 target 4: 6.7 s at 1M members; BenchmarkReload has the 1M figure).
func TestReloadDoesNotHoldCommands(t *testing.T) {
	gs := startGeoshardPlain(t, "geoshard-reload-bg")
	rc := dialRaw(t, gs)
	const members = 200_000
	rng := rand.New(rand.NewPCG(7, 11))
	var cmds [][]string
	for i := 0; i < members; i += 1000 {
		cmd := []string{"GEOADD", "fleet"}
		for j := i; j < i+1000; j++ {
			cmd = append(cmd, strconv.FormatFloat(-10+rng.Float64()*40, 'f', 5, 64),
				strconv.FormatFloat(35+rng.Float64()*25, 'f', 5, 64), "drv:"+strconv.Itoa(j))
		}
		cmds = append(cmds, cmd)
	}
	if _, err := rc.pipeline(cmds); err != nil {
		t.Fatal(err)
	}
	queries := [][]string{
		{"GEOSEARCH", "fleet", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "30", "km", "ASC", "WITHDIST"},
		{"GEOSEARCH", "fleet", "FROMMEMBER", "drv:17", "BYBOX", "80", "60", "km", "ASC", "COUNT", "20"},
		{"GEORADIUS", "fleet", "13.4", "52.5", "20", "km", "WITHCOORD"},
	}
	before := make([]string, len(queries))
	for i, q := range queries {
		before[i] = string(rc.mustDo(t, q...))
	}
	mapPath := writeGridMap(t, -10, 35, 30, 60, 60, 40)

	stop := make(chan struct{})
	worst := make(chan time.Duration, 1)
	pinger := dialRaw(t, gs)
	go func() {
		var most time.Duration
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			select {
			case <-stop:
				worst <- most
				return
			default:
			}
			start := time.Now()
			if _, err := pinger.do("PING"); err != nil {
				break
			}
			most = max(most, time.Since(start))
			time.Sleep(time.Millisecond)
		}
		worst <- most
	}()
	time.Sleep(50 * time.Millisecond)
	reload := time.Now()
	if r := string(rc.mustDo(t, "CONFIG", "SET", "regions", mapPath)); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET regions: %q", r)
	}
	sawMoving := false
	if r := string(rc.mustDo(t, "CONFIG", "SET", "regions", "")); strings.HasPrefix(r, "-") {
		sawMoving = strings.Contains(r, "still moving")
		if !sawMoving {
			t.Errorf("a second reload during the move: %q", r)
		}
	} else {
		t.Log("the move ended before the second reload") // a fast machine: nothing to refuse
		rc.mustDo(t, "CONFIG", "SET", "regions", mapPath)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		for i, q := range queries {
			if got := string(rc.mustDo(t, q...)); got != before[i] {
				t.Fatalf("%v during the move: %q, before %q", q, got, before[i])
			}
		}
		if infoField(t, rc, "shards", "region_map_move") == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the move did not end within a minute")
		}
	}
	moved := time.Since(reload)
	close(stop)
	most := <-worst
	// A PING held by the reload would wait for the move, and a loaded
	// machine slows the move as much as it delays a PING: the bound is a
	// third of the move, at least 300 ms (a PING's CPU waits alone took
	// up to 148 ms at load 9.6 on 2 cores, half the old fixed 300 ms:
	// 18-148 ms in 6 runs at load 6.5-14.2, the moves 1.8-2.5 s).
	limit := max(300*time.Millisecond, moved/3)
	t.Logf("slowest PING during the reload: %v; reload and move %v (refused a second reload: %v)", most, moved, sawMoving)
	if most > limit {
		t.Errorf("a PING waited %v during the reload, want < %v (the move took %v)", most, limit, moved)
	}
	if got := infoField(t, rc, "shards", "region_map_move_total"); got != strconv.Itoa(members) {
		t.Errorf("region_map_move_total:%s", got)
	}
}
