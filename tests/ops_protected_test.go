package tests

import (
	"strings"
	"testing"
)

// TestOpsProtectedDefaults: as Redis 7.0 by default, no client may move
// where files are written (dir, dbfilename) or run DEBUG; the same
// directives as Redis's allow them, for everyone (yes) or from
// 127.0.0.1 and ::1 only (local). Every reply is compared byte for byte
// with redis-server started the same way.
func TestOpsProtectedDefaults(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		flags []string
		from  string // local address to connect from
		steps [][]string
	}{
		{"defaults", nil, "127.0.0.1", [][]string{
			{"CONFIG", "SET", "dir", dir},
			{"CONFIG", "SET", "dbfilename", "authorized_keys"},
			{"CONFIG", "SET", "maxmemory", "0", "dir", dir},
			{"CONFIG", "SET", "DIR", dir, "nosuch", "1"},
			{"CONFIG", "GET", "enable-protected-configs"},
			{"CONFIG", "GET", "enable-debug-command"},
			{"CONFIG", "SET", "enable-debug-command", "yes"},
			{"CONFIG", "SET", "enable-protected-configs", "yes"},
			{"DEBUG", "SLEEP", "0"},
			{"debug", "help"},
			{"DEBUG"},
			{"MULTI"}, {"DEBUG", "SLEEP", "0"}, {"SET", "a", "1"}, {"EXEC"},
			{"MULTI"}, {"CONFIG", "SET", "dir", dir}, {"EXEC"},
			{"GET", "a"},
		}},
		{"enabled", []string{"--enable-protected-configs", "yes", "--enable-debug-command", "yes"}, "127.0.0.1", [][]string{
			{"CONFIG", "SET", "dir", dir},
			{"CONFIG", "SET", "dbfilename", "other.file"},
			{"CONFIG", "GET", "enable-module-command"}, {"CONFIG", "SET", "enable-module-command", "yes"},
			{"DEBUG", "SLEEP", "0"},
		}},
		{"local, from 127.0.0.1", []string{"--enable-protected-configs", "local", "--enable-debug-command", "local"}, "127.0.0.1", [][]string{
			{"CONFIG", "SET", "dir", dir},
			{"DEBUG", "SLEEP", "0"},
		}},
		{"local, from 127.0.0.2", []string{"--enable-protected-configs", "local", "--enable-debug-command", "local",
			"--protected-mode", "no"}, "127.0.0.2", [][]string{
			{"CONFIG", "SET", "dir", dir},
			{"DEBUG", "SLEEP", "0"},
			{"CONFIG", "GET", "enable-protected-configs"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := startRedis(t, tc.flags...)
			gs := startGeoshard(t, "geoshard", tc.flags...)
			rr, gr := dialFrom(t, tc.from, redis.addr), dialFrom(t, tc.from, gs.addr)
			for _, args := range tc.steps {
				want, got := string(rr.mustDo(t, args...)), string(gr.mustDo(t, args...))
				if got != want {
					t.Errorf("%s:\n  redis    %q\n  geoshard %q", quoteCommand(args), want, got)
				}
			}
			if tc.name == "defaults" {
				if r := string(gr.mustDo(t, "CONFIG", "GET", "dir")); strings.Contains(r, dir) {
					t.Errorf("dir changed: %q", r)
				}
			}
		})
	}
}

// TestOpsExecRefused: an EXEC that is itself refused (before AUTH, wrong
// arity) discards the transaction and says why, as Redis's
// execCommandAbort does.
func TestOpsExecRefused(t *testing.T) {
	redis := startRedis(t)
	gs := startGeoshard(t, "geoshard")
	for _, p := range []*serverProc{redis, gs} { // after the harness's PING
		if r := string(dialRaw(t, p).mustDo(t, "CONFIG", "SET", "requirepass", "pw")); r != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET requirepass: %q", p.name, r)
		}
	}
	rr, gr := dialRaw(t, redis), dialRaw(t, gs)
	for _, args := range [][]string{
		{"MULTI"}, {"SET", "a", "1"}, {"EXEC"}, {"EXEC", "x"}, {"DISCARD"},
		{"AUTH", "pw"}, {"MULTI"}, {"SET", "a", "1"}, {"EXEC", "x"}, {"EXEC"}, {"GET", "a"},
		{"MULTI"}, {"SET", "a", "2"}, {"EXEC"}, {"GET", "a"},
	} {
		want, got := string(rr.mustDo(t, args...)), string(gr.mustDo(t, args...))
		if got != want {
			t.Errorf("%s:\n  redis    %q\n  geoshard %q", quoteCommand(args), want, got)
		}
	}
}
