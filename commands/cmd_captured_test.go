package commands

import (
	"strings"
	"testing"
	"time"

	"geoshard/router"
)

// Captured scripts run the engine in process, with no redis-server: each
// script starts on a fresh engine, and every reply must be the exact byte
// stream redis-server 7.0.15 sent for the same commands, captured once by
// playing the script against it (words split on blanks, as session.line
// does) and pasted into the table.

// capturedScript is commands on one fresh connection and Redis's replies.
type capturedScript struct {
	name  string
	resp3 bool // the connection says HELLO 3 first
	steps []step
}

// runCaptured plays each script on an engine with the embedded world
// map, so searches that cross regions fan out and merge as in production.
func runCaptured(t *testing.T, scripts []capturedScript) {
	t.Helper()
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			// Correctness, not timing: no shard may miss its deadline under
			// -race on a loaded machine and leave a partial answer.
			e := New(router.New(router.Config{FanoutTimeout: time.Minute}), NewConfig())
			s := &session{t: t, e: e, c: e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")}
			if sc.resp3 {
				if got := s.line("HELLO 3"); !strings.HasPrefix(got, "%7\r\n") {
					t.Fatalf("HELLO 3 = %q", got)
				}
			}
			s.run(sc.steps)
		})
	}
}

// TestCapturedMatchRedis replays every captured script against a real
// redis-server 7.0, so the tables cannot drift from what Redis says; the
// tables' own tests need no redis-server.
func TestCapturedMatchRedis(t *testing.T) {
	addr := startRedis(t)
	all := [][]capturedScript{
		geoaddScripts, geoReadScripts, geosearchScripts, georadiusScripts, geostoreScripts,
		geosearchErrorScripts, zrangeScripts, scanArgScripts, expireArgScripts, setOptionScripts,
	}
	for _, scripts := range all {
		for _, sc := range scripts {
			r := dialRedis(t, addr)
			r.send([]string{"FLUSHALL"})
			if sc.resp3 {
				r.send([]string{"HELLO", "3"})
			}
			for _, st := range sc.steps {
				if got := r.send(strings.Fields(st.cmd)); got != st.want {
					t.Errorf("%s: %s\nredis-server %q\n       table %q", sc.name, st.cmd, got, st.want)
				}
			}
			r.conn.Close()
		}
	}
}
