package tests

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startSnap starts a geoshard whose snapshots go to dir.
func startSnap(t *testing.T, name, dir string, extra ...string) *serverProc {
	t.Helper()
	return startGeoshard(t, name, append([]string{"--dir", dir}, extra...)...)
}

// fillSnap writes n drivers per fleet in db 0 and 2, strings with and
// without TTLs, and key expiries: what a warm restart must bring back.
func fillSnap(t *testing.T, rc *rawConn, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var cmds [][]string
	for _, db := range []string{"0", "2"} {
		cmds = append(cmds, []string{"SELECT", db})
		for _, fleet := range []string{"cars", "bikes"} {
			add := []string{"GEOADD", fleet}
			for i := range n {
				// Clustered around Europe so searches find many, plus
				// some anywhere, across shard borders.
				lon, lat := 10+rng.NormFloat64()*8, 48+rng.NormFloat64()*6
				if i%10 == 0 {
					lon, lat = rng.Float64()*360-180, rng.Float64()*170-85
				}
				lat = max(min(lat, 85), -85)
				add = append(add, strconv.FormatFloat(lon, 'f', 6, 64), strconv.FormatFloat(lat, 'f', 6, 64), fleet+strconv.Itoa(i))
			}
			cmds = append(cmds, add)
		}
		cmds = append(cmds,
			[]string{"SET", "plain", "v" + db},
			[]string{"SET", "ttl", "x", "PX", "600000"},
			[]string{"PEXPIREAT", "bikes", strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)},
			[]string{"ZADD", "scores", "-0", "negzero", "1.5", "a", "-inf", "lo"},
		)
	}
	cmds = append(cmds, []string{"SELECT", "0"})
	replies, err := rc.pipeline(cmds)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		if len(r) > 0 && r[0] == '-' {
			t.Fatalf("%s: %s", quoteCommand(cmds[i]), r)
		}
	}
}

// snapReads are the commands whose raw replies a restart must keep.
func snapReads() [][]string {
	var out [][]string
	for _, db := range []string{"0", "2"} {
		out = append(out,
			[]string{"SELECT", db},
			[]string{"DBSIZE"},
			[]string{"ZRANGE", "cars", "0", "-1", "WITHSCORES"},
			[]string{"ZRANGE", "bikes", "0", "-1", "WITHSCORES"},
			[]string{"GEOPOS", "cars", "cars0", "cars1", "cars17", "nobody"},
			[]string{"GEOSEARCH", "cars", "FROMLONLAT", "10", "48", "BYRADIUS", "300", "km", "WITHCOORD", "WITHDIST", "WITHHASH"},
			[]string{"GEOSEARCH", "bikes", "FROMLONLAT", "12", "50", "BYBOX", "2000", "1500", "km", "ASC", "COUNT", "50", "WITHDIST"},
			[]string{"GEOSEARCH", "cars", "FROMMEMBER", "cars3", "BYRADIUS", "5000", "km", "DESC", "WITHCOORD"},
			[]string{"GEORADIUS", "bikes", "0", "0", "20000", "km", "ASC", "COUNT", "20"},
			[]string{"GEODIST", "cars", "cars1", "cars2"},
			[]string{"ZRANGE", "scores", "0", "-1", "WITHSCORES"},
			[]string{"GET", "plain"},
			[]string{"PEXPIRETIME", "ttl"},
			[]string{"PEXPIRETIME", "bikes"},
			[]string{"PEXPIRETIME", "cars"},
		)
	}
	return append(out, []string{"SELECT", "0"})
}

func readAll(t *testing.T, rc *rawConn) [][]byte {
	t.Helper()
	r, err := rc.pipeline(snapReads())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameReads compares replies taken before and after a restart, byte for byte.
func sameReads(t *testing.T, before, after [][]byte) {
	t.Helper()
	cmds := snapReads()
	bad := 0
	for i := range cmds {
		// The replies must say something, or comparing them proves nothing.
		if r := string(before[i]); strings.HasPrefix(r, "-") || r == "*0\r\n" || r == "$-1\r\n" {
			t.Errorf("%s before the restart: %q, not a test of anything", quoteCommand(cmds[i]), r)
		}
		if string(before[i]) != string(after[i]) {
			bad++
			if bad <= 3 {
				t.Errorf("%s differs after the restart:\nbefore %.300q\nafter  %.300q", quoteCommand(cmds[i]), before[i], after[i])
			}
		}
	}
	if bad > 3 {
		t.Errorf("%d replies differ in all", bad)
	}
}

// runGeoshard runs geoshard to its end, for starts that must fail.
func runGeoshard(t *testing.T, args ...string) (exit int, output string) {
	t.Helper()
	race := raceEnabled && os.Getenv("GEOSHARD_E2E_RACE") != "0"
	bin := geoshardBinary(t, race)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1"}, args...)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("running geoshard: %v\n%s", err, out)
	}
	return 0, string(out)
}

// waitFor polls cond every 20 ms for up to limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tempFiles(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	return m
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func expectLog(t *testing.T, p *serverProc, want string) {
	t.Helper()
	if !strings.Contains(p.out.String(), want) {
		t.Errorf("%s log lacks %q:\n%s", p.name, want, p.out.String())
	}
}

func mkdir(p string) error { return os.Mkdir(p, 0o755) }

func rmdir(p string) error { return os.Remove(p) }
