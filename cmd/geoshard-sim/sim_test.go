package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"geoshard/plan"
)

// serverBin is the geoshard binary the tests start, built once.
var serverBin struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if serverBin.dir != "" {
		os.RemoveAll(serverBin.dir)
	}
	os.Exit(code)
}

// startServer builds (once) and starts a real geoshard on a free loopback
// port with the given region map, and returns its address.
func startServer(t *testing.T, regions []byte) string {
	t.Helper()
	serverBin.once.Do(func() {
		if serverBin.dir, serverBin.err = os.MkdirTemp("", "geoshard-sim-test"); serverBin.err != nil {
			return
		}
		args := append([]string{"build"}, buildFlags...)
		build := exec.Command("go", append(args, "-o", filepath.Join(serverBin.dir, "geoshard"), "geoshard/cmd/geoshard")...)
		if out, err := build.CombinedOutput(); err != nil {
			serverBin.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if serverBin.err != nil {
		t.Fatalf("building geoshard: %v", serverBin.err)
	}
	bin := filepath.Join(serverBin.dir, "geoshard")
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "regions.geojson")
	if err := os.WriteFile(mapFile, regions, 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--regions", mapFile)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for try := 0; ; try++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		if try == 100 {
			t.Fatalf("geoshard did not start on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSimAgainstServer runs the simulator against a real server whose map
// is an equal 2x2 grid over the metro: its borders cut through districts
// and one runs right along a street, so drivers cross them (handoffs),
// wobble along them (suppressed flaps) and searches fan out.
func TestSimAgainstServer(t *testing.T) {
	metro := plan.DefaultMetro()
	grid, err := plan.NaiveGrid(metro.Bounds(), 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, grid.GeoJSON())
	cfg := config{
		Addr: addr, Key: "drivers", Duration: 3 * time.Second, Drivers: 300, Interval: 4 * time.Second,
		SearchesPerSec: 3, TimeScale: 40, Seed: 1, Progress: time.Second,
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := run(ctx, cfg, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Logf("\n%s", out.String())
	got := sum.End.totals()
	if sum.Errors != 0 || sum.Pings == 0 || sum.Searches == 0 {
		t.Fatalf("sent %d pings, %d searches, %d errors", sum.Pings, sum.Searches, sum.Errors)
	}
	// The server counted what the simulator sent. (It may count a search
	// twice: a nearest-first COUNT search that cannot prove its order
	// falls back to a full search, and both count.)
	if got.writes != sum.Pings || got.searches < sum.Searches {
		t.Errorf("server counted %d writes and %d searches; sent %d and %d", got.writes, got.searches, sum.Pings, sum.Searches)
	}
	if got.members != int64(cfg.Drivers) {
		t.Errorf("server holds %d members, want %d drivers", got.members, cfg.Drivers)
	}
	if got.handoffs == 0 || got.flaps == 0 || got.fanOut == 0 {
		t.Errorf("handoffs %d, flaps suppressed %d, fan-out searches %d: want all of them", got.handoffs, got.flaps, got.fanOut)
	}
	lines := strings.Count(out.String(), "handoffs/s")
	if lines < 2 {
		t.Errorf("%d progress lines in 3 s, want at least 2", lines)
	}
	if !strings.Contains(out.String(), "border cell-0-0|cell-1-0:") {
		t.Errorf("no per-border summary:\n%s", out.String())
	}
}

// TestReplayMatchesPlanner replays one recorded workload, searches with
// and without COUNT, against a real server and through the planner: the
// server's counters and the planner's figures must agree within 5 %.
func TestReplayMatchesPlanner(t *testing.T) {
	metro := plan.DefaultMetro()
	grid, err := plan.NaiveGrid(metro.Bounds(), 4, 200)
	if err != nil {
		t.Fatal(err)
	}
	w := metro.Synthesize(plan.SynthConfig{Drivers: 150, Duration: 240, SearchesPerSec: 4, Seed: 3})
	for i := range w.Searches {
		if i%3 == 0 {
			w.Searches[i].Count = -1 // every driver in the radius
		}
	}
	dir := t.TempDir()
	pings, searches := filepath.Join(dir, "pings.csv"), filepath.Join(dir, "searches.csv")
	for path, write := range map[string]func(*os.File) error{
		pings:    func(f *os.File) error { return plan.WritePings(f, w.Pings) },
		searches: func(f *os.File) error { return plan.WriteSearches(f, w.Searches) },
	} {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	addr := startServer(t, grid.GeoJSON())
	cfg, err := parseFlags([]string{"-addr", addr, "-pings", pings, "-searches-file", searches})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := runReplay(ctx, cfg, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// The planner reads the same files.
	read, err := plan.ReadWorkload(pings, searches)
	if err != nil {
		t.Fatal(err)
	}
	rep := plan.Replay("grid", grid, read)
	conn, err := dial(addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	in, err := infoReader(conn)()
	if err != nil {
		t.Fatal(err)
	}
	got := in.totals()
	for _, c := range []struct {
		name            string
		server, planner int64
	}{
		{"searches counted", got.searches, rep.Searches},
		{"searches that fanned out", got.fanOut, rep.FanOut},
		{"handoffs", got.handoffs, rep.Handoffs},
		{"flaps suppressed", got.flaps, rep.FlapsSuppressed},
		{"writes", got.writes, int64(rep.Pings)},
	} {
		t.Logf("%s: server %d, planner %d", c.name, c.server, c.planner)
		if c.planner == 0 || math.Abs(float64(c.server-c.planner)) > 0.05*float64(c.planner) {
			t.Errorf("%s: server %d, planner %d: more than 5 %% apart", c.name, c.server, c.planner)
		}
	}
	if !strings.Contains(out.String(), "border cell-0-0|cell-1-0:") {
		t.Errorf("replay summary lacks the border figures:\n%s", out.String())
	}
}

func TestLoopbackOnly(t *testing.T) {
	cases := []struct {
		addr, want string
		ok         bool
	}{
		{"127.0.0.1:6379", "127.0.0.1:6379", true},
		{"127.1.2.3:1", "127.1.2.3:1", true},
		{"[::1]:6379", "[::1]:6379", true},
		{"localhost:6379", "127.0.0.1:6379", true},
		{"10.0.0.1:6379", "", false},
		{"0.0.0.0:6379", "", false},
		{"[::]:6379", "", false},
		{"example.com:6379", "", false},
		{"127.0.0.1", "", false},
		{"127.0.0.1:0", "", false},
		{"127.0.0.1:99999", "", false},
	}
	for _, c := range cases {
		got, err := loopbackAddr(c.addr)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s: %q, %v", c.addr, got, err)
		}
	}
	if _, err := parseFlags([]string{"-addr", "192.168.1.1:6379"}); err == nil {
		t.Error("a LAN address was accepted")
	}
}

func TestParseInfo(t *testing.T) {
	text := "# Shards\r\nregion_map_version:v1\r\nshards:3\r\n" +
		"shard_a:members=3,writes=10,handoffs_in=1,handoffs_out=0,searches=4,degraded=0,expired=0\r\n" +
		"shard_b:members=2,writes=5,handoffs_in=0,handoffs_out=1,searches=2,degraded=1,expired=0\r\n" +
		"border_a_b:handoffs=1,flaps_suppressed=7,searches=2\r\n" +
		"searches_by_shards:1=3,2=2,3=0,4=0,5=0,6=0,7=0,8+=1\r\ndegraded_searches:1\r\n"
	got := parseInfo(text).totals()
	want := totals{handoffs: 1, flaps: 7, searches: 6, fanOut: 3, degraded: 1, writes: 15, members: 5}
	if got != want {
		t.Errorf("totals = %+v, want %+v", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-drivers", "0"}, {"-drivers", "1000000"}, {"-duration", "0s"}, {"-interval", "1ms"},
		{"-speed", "0"}, {"-searches", "-1"}, {"-progress", "1ms"}, {"stray"},
	} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
