package tests

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Real clients, unchanged, against redis-server and geoshard: what users
// run must work the same on both (DESIGN.md §1).

// forBothServers runs fn once against redis-server and once against
// geoshard, as subtests; a geoshard build failure fails its subtest.
func forBothServers(t *testing.T, fn func(t *testing.T, p *serverProc)) {
	t.Run("redis", func(t *testing.T) { fn(t, startRedis(t)) })
	t.Run("geoshard", func(t *testing.T) { fn(t, startGeoshard(t, "geoshard")) })
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGoRedisRoundTrip(t *testing.T) {
	for _, proto := range []int{3, 2} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			forBothServers(t, func(t *testing.T, p *serverProc) {
				goRedisRoundTrip(t, p, proto)
			})
		})
	}
}

func goRedisRoundTrip(t *testing.T, p *serverProc, proto int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: proto,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	defer rdb.Close()

	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatalf("FLUSHALL: %v", err)
	}
	n, err := rdb.GeoAdd(ctx, "Sicily",
		&redis.GeoLocation{Name: "Palermo", Longitude: 13.361389, Latitude: 38.115556},
		&redis.GeoLocation{Name: "Catania", Longitude: 15.087269, Latitude: 37.502669}).Result()
	if err != nil || n != 2 {
		t.Fatalf("GeoAdd = %d, %v; want 2", n, err)
	}

	names, err := rdb.GeoSearch(ctx, "Sicily", &redis.GeoSearchQuery{
		Longitude: 15, Latitude: 37, Radius: 200, RadiusUnit: "km", Sort: "ASC"}).Result()
	if err != nil || strings.Join(names, ",") != "Catania,Palermo" {
		t.Fatalf("GeoSearch = %q, %v; want [Catania Palermo]", names, err)
	}

	locs, err := rdb.GeoSearchLocation(ctx, "Sicily", &redis.GeoSearchLocationQuery{
		GeoSearchQuery: redis.GeoSearchQuery{Longitude: 15, Latitude: 37, BoxWidth: 400, BoxHeight: 400, BoxUnit: "km", Sort: "ASC"},
		WithCoord:      true, WithDist: true, WithHash: true}).Result()
	want := []redis.GeoLocation{
		{Name: "Catania", Longitude: mustFloat(t, "15.08726745843887329"), Latitude: mustFloat(t, "37.50266842333162032"), Dist: 56.4413, GeoHash: 3479447370796909},
		{Name: "Palermo", Longitude: mustFloat(t, "13.36138933897018433"), Latitude: mustFloat(t, "38.11555639549629859"), Dist: 190.4424, GeoHash: 3479099956230698},
	}
	if err != nil || len(locs) != len(want) {
		t.Fatalf("GeoSearchLocation = %+v, %v; want %+v", locs, err, want)
	}
	for i := range want {
		if locs[i] != want[i] {
			t.Errorf("GeoSearchLocation[%d] = %+v, want %+v", i, locs[i], want[i])
		}
	}

	pos, err := rdb.GeoPos(ctx, "Sicily", "Palermo", "nope").Result()
	if err != nil || len(pos) != 2 || pos[0] == nil || pos[1] != nil {
		t.Fatalf("GeoPos = %v, %v; want one position and one nil", pos, err)
	}
	if pos[0].Longitude != want[1].Longitude || pos[0].Latitude != want[1].Latitude {
		t.Errorf("GeoPos Palermo = %+v, want %v %v", *pos[0], want[1].Longitude, want[1].Latitude)
	}

	if d, err := rdb.GeoDist(ctx, "Sicily", "Palermo", "Catania", "km").Result(); err != nil || d != 166.2742 {
		t.Errorf("GeoDist km = %v, %v; want 166.2742", d, err)
	}
	if d, err := rdb.GeoDist(ctx, "Sicily", "Palermo", "nope", "").Result(); !errors.Is(err, redis.Nil) {
		t.Errorf("GeoDist to a missing member = %v, %v; want redis.Nil", d, err)
	}
	if h, err := rdb.GeoHash(ctx, "Sicily", "Palermo", "Catania").Result(); err != nil || strings.Join(h, ",") != "sqc8b49rny0,sqdtr74hyu0" {
		t.Errorf("GeoHash = %q, %v", h, err)
	}

	stored, err := rdb.GeoSearchStore(ctx, "Sicily", "dst", &redis.GeoSearchStoreQuery{
		GeoSearchQuery: redis.GeoSearchQuery{Member: "Palermo", Radius: 200, RadiusUnit: "km"}, StoreDist: true}).Result()
	if err != nil || stored != 2 {
		t.Fatalf("GeoSearchStore = %d, %v; want 2", stored, err)
	}
	zs, err := rdb.ZRangeWithScores(ctx, "dst", 0, -1).Result()
	if err != nil || len(zs) != 2 || zs[0].Member != "Palermo" || zs[0].Score != 0 ||
		zs[1].Member != "Catania" || zs[1].Score != mustFloat(t, "166.27415156960032") {
		t.Errorf("ZRangeWithScores dst = %+v, %v", zs, err)
	}

	if _, err := rdb.GeoAdd(ctx, "Sicily", &redis.GeoLocation{Name: "x", Longitude: 500, Latitude: 1}).Result(); err == nil ||
		err.Error() != "ERR invalid longitude,latitude pair 500.000000,1.000000" {
		t.Errorf("GeoAdd 500,1 error = %v", err)
	}
}

// redisCLI finds the Debian redis-cli.
func redisCLI(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/redis-cli"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("redis-cli"); err == nil {
		return p
	}
	t.Fatalf("redis-cli is not installed: .ci/run installs it (apt-get install redis-tools)")
	return ""
}

func runCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, redisCLI(t), args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestRedisCLIRoundTrip(t *testing.T) {
	// Each row: redis-cli arguments after -p PORT, and its exact output
	// (redis-cli prints raw replies when stdout is not a terminal).
	oneShots := []struct {
		args []string
		want string
	}{
		{[]string{"FLUSHALL"}, "OK\n"},
		{[]string{"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}, "2\n"},
		{[]string{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "WITHDIST", "WITHCOORD"},
			"Catania\n56.4413\n15.08726745843887329\n37.50266842333162032\nPalermo\n190.4424\n13.36138933897018433\n38.11555639549629859\n"},
		{[]string{"GEOPOS", "Sicily", "Palermo", "nope"}, "13.36138933897018433\n38.11555639549629859\n\n"},
		{[]string{"-3", "GEOPOS", "Sicily", "Palermo", "nope"}, "13.36138933897018433\n38.11555639549629859\n\n"},
		{[]string{"GEODIST", "Sicily", "Palermo", "Catania", "km"}, "166.2742\n"},
		{[]string{"GEOHASH", "Sicily", "Palermo"}, "sqc8b49rny0\n"},
		{[]string{"GEOADD", "Sicily", "500", "1", "x"}, "ERR invalid longitude,latitude pair 500.000000,1.000000\n\n"},
		{[]string{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d"}, "2\n"},
		{[]string{"ZRANGE", "d", "0", "-1", "WITHSCORES"}, "Catania\n56.441257870158204\nPalermo\n190.44242984775784\n"},
	}
	session := "GEOADD k 1 1 \"a b\"\n" +
		"GEOSEARCH k FROMLONLAT 1 1 BYRADIUS 1 km WITHDIST\n" +
		"GEODIST k \"a b\" \"a b\" km\n" +
		"GEOHASH k \"a b\"\n" +
		"GEOSEARCH k FROMMEMBER nope BYRADIUS 1 km\n" +
		"BOGUS\n"
	sessionWant := "1\na b\n0.0001\n0.0000\ns00twy01mt0\nERR could not decode requested zset member\n\n" +
		"ERR unknown command 'BOGUS', with args beginning with: \n\n"

	forBothServers(t, func(t *testing.T, p *serverProc) {
		port := strconv.Itoa(p.port)
		for _, c := range oneShots {
			got := runCLI(t, "", append([]string{"-p", port}, c.args...)...)
			if got != c.want {
				t.Errorf("redis-cli %s\n got: %q\nwant: %q", strings.Join(c.args, " "), got, c.want)
			}
		}
		if got := runCLI(t, session, "-p", port); got != sessionWant {
			t.Errorf("piped redis-cli session\n got: %q\nwant: %q", got, sessionWant)
		}
	})
}

// python3WithRedis finds an interpreter that has redis-py: Debian's
// python3-redis lives in /usr/bin/python3's path, which a pyenv python3
// earlier in PATH would not see.
func python3WithRedis(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	var tried []string
	for _, py := range candidates {
		out, err := exec.Command(py, "-c", "import redis").CombinedOutput()
		if err == nil {
			return py
		}
		tried = append(tried, py+": "+strings.TrimSpace(string(out)))
	}
	t.Fatalf("no python3 with redis-py (%s): .ci/run installs it (apt-get install python3-redis)", strings.Join(tried, "; "))
	return ""
}

func TestRedisPyRoundTrip(t *testing.T) {
	py := python3WithRedis(t)
	want, err := os.ReadFile("testdata/redispy_roundtrip.golden")
	if err != nil {
		t.Fatal(err)
	}
	forBothServers(t, func(t *testing.T, p *serverProc) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, py, "testdata/redispy_roundtrip.py", strconv.Itoa(p.port)).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-py script: %v\n%s", err, out)
		}
		if string(out) != string(want) {
			t.Errorf("redis-py output differs from testdata/redispy_roundtrip.golden\n got:\n%s\nwant:\n%s", out, want)
		}
	})
}
