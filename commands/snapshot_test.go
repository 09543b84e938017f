package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"geoshard/router"
	"geoshard/shard"
	"geoshard/snapshot"
)

// persistSession is a session whose snapshots go to a test directory.
func persistSession(t testing.TB, dir string, delayUS string) *session {
	t.Helper()
	cfg := NewConfig()
	for name, v := range map[string]string{"dir": dir, "dbfilename": "dump.gsnap", "rdb-key-save-delay": delayUS} {
		cfg.Add(&Setting{Name: name, Get: func() string { return v }})
	}
	e := New(router.New(router.Config{}), cfg)
	return &session{t: t, e: e, c: e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")}
}

// fill writes one of everything a snapshot must carry.
func fill(s *session) {
	s.t.Helper()
	for _, cmd := range []string{
		"SET s1 hello", "SET s2 world", "PEXPIREAT s2 99999999999999",
		"GEOADD drivers 13.361389 38.115556 Palermo 15.087269 37.502669 Catania -122.27 37.80 Oakland 151.2 -33.86 Sydney",
		"EXPIREAT drivers 99999999999", "ZADD plain -0 zero 1.5 a -inf lo +inf hi",
		"SET gone x", "SELECT 3", "GEOADD fleet 2.35 48.85 paris 139.69 35.68 tokyo", "SET s3 x", "SELECT 0",
	} {
		if r := s.line(cmd); strings.HasPrefix(r, "-") {
			s.t.Fatalf("%s: %s", cmd, r)
		}
	}
	// A big key keeps -0 as Redis's skiplist does.
	for i := range 130 {
		s.do("ZADD", "big", "1", "m"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	s.do("ZADD", "big", "-0", "negzero")
	s.expireNow("gone")
	s.e.Router().SetKeyTTL(shard.Key{DB: 3, Name: "fleet"}, 90*time.Second)
}

// reads are the replies a restart must keep, byte for byte.
var reads = []string{
	"GET s1", "GET s2", "PEXPIRETIME s2", "EXPIRETIME drivers", "GET gone", "DBSIZE",
	"ZRANGE drivers 0 -1 WITHSCORES", "GEOPOS drivers Palermo Catania Oakland Sydney nobody",
	"GEOSEARCH drivers FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHCOORD WITHDIST WITHHASH",
	"ZRANGE plain 0 -1 WITHSCORES", "ZSCORE big negzero", "ZCARD big", "TYPE big",
	"SELECT 3", "ZRANGE fleet 0 -1 WITHSCORES", "GET s3", "DBSIZE", "SELECT 0",
}

func replies(s *session) []string {
	var out []string
	for _, r := range reads {
		out = append(out, s.line(r))
	}
	return out
}

func TestSaveLoad(t *testing.T) {
	for _, mode := range []string{"SAVE", "BGSAVE"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			s := persistSession(t, dir, "0")
			fill(s)
			want := replies(s)
			if s.e.Dirty() == 0 {
				t.Fatal("no changes counted before the save")
			}
			switch mode {
			case "SAVE":
				if r := s.line("SAVE"); r != "+OK\r\n" {
					t.Fatalf("SAVE: %q", r)
				}
			case "BGSAVE":
				if r := s.line("BGSAVE"); r != "+Background saving started\r\n" {
					t.Fatalf("BGSAVE: %q", r)
				}
				waitSaved(t, s)
			}
			info := s.line("INFO persistence")
			for _, f := range []string{"rdb_changes_since_last_save:0\r\n", "rdb_saves:1\r\n", "rdb_bgsave_in_progress:0\r\n", "rdb_last_bgsave_status:ok\r\n"} {
				if !strings.Contains(info, f) {
					t.Errorf("INFO lacks %q:\n%s", f, info)
				}
			}
			s.line("SET after save")
			if d := s.e.Dirty(); d != 1 {
				t.Errorf("changes after one SET: %d", d)
			}

			back := persistSession(t, dir, "0")
			st, err := back.e.Load(back.e.SnapshotPath())
			if err != nil {
				t.Fatal(err)
			}
			if st.Keys != 7 || st.Members != 4+4+2+131 {
				t.Errorf("loaded %+v", st)
			}
			got := replies(back)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s after load:\n got %q\nwant %q", reads[i], got[i], want[i])
				}
			}
			if d := back.e.Router().KeyTTL(shard.Key{DB: 3, Name: "fleet"}); d != 90*time.Second {
				t.Errorf("position TTL of fleet: %v", d)
			}
		})
	}
}

func waitSaved(t *testing.T, s *session) {
	t.Helper()
	for i := 0; s.e.SaveInProgress(); i++ {
		if i > 1000 {
			t.Fatal("background save did not end in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBGSaveBusy: while a background save runs, SAVE and BGSAVE are
// refused as in Redis, BGSAVE SCHEDULE queues one more, and writes go on.
func TestBGSaveBusy(t *testing.T) {
	dir := t.TempDir()
	s := persistSession(t, dir, "20000") // 20 ms per key
	for i := range 10 {
		s.do("SET", "k"+string(rune('0'+i)), "v")
	}
	s.run([]step{
		{"BGSAVE", "+Background saving started\r\n"},
		{"BGSAVE", "-ERR Background save already in progress\r\n"},
		{"SAVE", "-ERR Background save already in progress\r\n"},
		{"BGSAVE SCHEDULE", "+Background saving scheduled\r\n"},
		{"BGSAVE NOW", "-ERR syntax error\r\n"},
		{"SET during bgsave", "+OK\r\n"},
	})
	if !strings.Contains(s.line("INFO persistence"), "rdb_bgsave_in_progress:1\r\n") {
		t.Error("INFO does not show the save in progress")
	}
	// The scheduled save starts on the first one's goroutine once that
	// one is done and the engine's lock is free: a fixed 50 ms for it to
	// start assumed a CPU for that goroutine within 50 ms.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		info := s.line("INFO persistence")
		if strings.Contains(info, "rdb_saves:2\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scheduled save did not run in 10 s:\n%s", info)
		}
	}
}

// TestLoadRefusesDamage: a damaged file is refused whole and leaves the
// engine empty.
func TestLoadRefusesDamage(t *testing.T) {
	dir := t.TempDir()
	s := persistSession(t, dir, "0")
	fill(s)
	if r := s.line("SAVE"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	path := s.e.SnapshotPath()
	good, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name string
		data []byte
		kind error
	}{
		{"flipped byte", flip(good, len(good)/2), snapshot.ErrCorrupt},
		{"truncated", good[:len(good)-100], snapshot.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.gsnap")
			os.WriteFile(bad, tc.data, 0o644)
			e := persistSession(t, dir, "0")
			_, err := e.e.Load(bad)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("Load: %v, want %v naming %s", err, tc.kind, bad)
			}
			if r := e.line("DBSIZE"); r != ":0\r\n" {
				t.Fatalf("DBSIZE after a refused load: %q", r)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 1
	return out
}

func TestSaveFailure(t *testing.T) {
	s := persistSession(t, filepath.Join(t.TempDir(), "missing", "dir"), "0")
	s.line("SET k v")
	if r := s.line("SAVE"); !strings.HasPrefix(r, "-ERR snapshot ") {
		t.Fatalf("SAVE into a missing directory: %q", r)
	}
	s.line("BGSAVE")
	waitSaved(t, s)
	if !strings.Contains(s.line("INFO persistence"), "rdb_last_bgsave_status:err\r\n") {
		t.Error("failed BGSAVE not in INFO")
	}
	if s.e.Dirty() != 1 {
		t.Errorf("a failed save cleared the changes: %d", s.e.Dirty())
	}
}
