package commands

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// Every way BYPOLYGON can be written wrong gets its error, and a
// GEOSEARCHSTORE that fails leaves the destination as it was.
func TestPolygonErrors(t *testing.T) {
	s := newSession(t)
	s.line("GEOADD k 4.9 52.37 a 4.91 52.38 b")
	s.line("SET dst untouched")
	tri := "BYPOLYGON 3 4.8 52.3 5.0 52.3 4.9 52.5"
	errs := []struct{ args, want string }{
		{"k BYPOLYGON x 4.8 52.3 5.0 52.3 4.9 52.5", "-ERR invalid number of vertices\r\n"},
		{"k BYPOLYGON 1.5 4.8 52.3 5.0 52.3 4.9 52.5", "-ERR invalid number of vertices\r\n"},
		{"k BYPOLYGON 4294967299 4.8 52.3 5.0 52.3 4.9 52.5", "-ERR invalid number of vertices\r\n"},
		{"k BYPOLYGON 2 4.8 52.3 5.0 52.3", "-ERR %s BYPOLYGON must have at least 3 vertices\r\n"},
		{"k BYPOLYGON -3 4.8 52.3 5.0 52.3 4.9 52.5", "-ERR %s BYPOLYGON must have at least 3 vertices\r\n"},
		{"k BYPOLYGON 4 4.8 52.3 5.0 52.3 4.9 52.5", "-ERR %s BYPOLYGON has 4 vertices but only 6 arguments follow, need 8\r\n"},
		{"k BYPOLYGON 3 4.8 52.3 5.0 52.3 4.9", "-ERR %s BYPOLYGON has 3 vertices but only 5 arguments follow, need 6\r\n"},
		{"k " + tri + " 4.7", "-ERR syntax error\r\n"}, // an odd coordinate left over
		{"k BYPOLYGON 3 4.8 52.3 5.0 x 4.9 52.5", "-ERR value is not a valid float\r\n"},
		{"k BYPOLYGON 3 4.8 52.3 5.0 86 4.9 52.5", "-ERR invalid longitude,latitude pair 5.000000,86.000000\r\n"},
		{"k BYPOLYGON 3 4.8 52.3 181 52.3 4.9 52.5", "-ERR invalid longitude,latitude pair 181.000000,52.300000\r\n"},
		{"k " + tri + " BYRADIUS 1 km", "-" + errPolygonConflict + "\r\n"},
		{"k BYBOX 1 1 km " + tri, "-" + errPolygonConflict + "\r\n"},
		{"k FROMLONLAT 4.9 52.4 " + tri, "-" + errPolygonConflict + "\r\n"},
		{"k " + tri + " FROMMEMBER a", "-" + errPolygonConflict + "\r\n"},
		{"k " + tri + " " + tri, "-" + errPolygonConflict + "\r\n"},
		{"k WITHDIST ASC WITHHASH DESC BYPOLYGON", "-ERR syntax error\r\n"},
		{"k " + tri + " COUNT 0", "-ERR COUNT must be > 0\r\n"},
		{"k " + tri + " ANY", "-ERR the ANY argument requires COUNT argument\r\n"},
	}
	for _, tc := range errs {
		for _, name := range []string{"GEOSEARCH", "GEOSEARCHSTORE"} {
			cmd := name + " " + tc.args
			if name == "GEOSEARCHSTORE" {
				cmd = name + " dst " + tc.args
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, name)
			}
			if got := s.line(cmd); got != want {
				t.Errorf("%s\n got %q\nwant %q", cmd, got, want)
			}
		}
	}
	s.run([]step{
		{"GEOSEARCHSTORE dst k " + tri + " WITHDIST", "-ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"},
		{"GET dst", "$9\r\nuntouched\r\n"},
		{"GEORADIUS k 4.9 52.4 10 km " + tri, "-ERR syntax error\r\n"},
		{"GEOSEARCH nokey " + tri, "*0\r\n"},
		{"GEOSEARCHSTORE dst nokey " + tri, ":0\r\n"},
		{"EXISTS dst", ":0\r\n"},
	})
}

// The options behave as for circles and boxes; distances are metres from
// the vertices' centroid.
func TestPolygonOptions(t *testing.T) {
	s := newSession(t)
	// Valkey's documented example.
	s.line("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania")
	s.line("GEOADD Sicily 12.758489 38.788135 edge1 17.241510 38.788135 edge2")
	poly := "BYPOLYGON 5 12.41098696654226 38.05033923003755 15.107936245794182 38.00616649901906 18.148439288534455 38.63804787603499 17.80831874257693 39.50316813110968 12.458468633214036 38.57719533463012"
	s.run([]step{
		{"GEOSEARCH Sicily " + poly, "*2\r\n$7\r\nPalermo\r\n$5\r\nedge2\r\n"},
		{"GEOSEARCH Sicily " + poly + " ASC WITHCOORD WITHDIST",
			"*2\r\n*3\r\n$7\r\nPalermo\r\n$11\r\n166482.0159\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n" +
				"*3\r\n$5\r\nedge2\r\n$11\r\n180861.7725\r\n*2\r\n$20\r\n17.24151045083999634\r\n$20\r\n38.78813451624225195\r\n"},
		{"GEOSEARCH Sicily " + poly + " DESC", "*2\r\n$5\r\nedge2\r\n$7\r\nPalermo\r\n"},
		{"GEOSEARCH Sicily " + poly + " COUNT 1", "*1\r\n$7\r\nPalermo\r\n"},
		{"GEOSEARCH Sicily " + poly + " COUNT 1 DESC WITHHASH", "*1\r\n*2\r\n$5\r\nedge2\r\n:" + bulkOf(s.line("ZSCORE Sicily edge2")) + "\r\n"},
		{"GEOSEARCH Sicily " + poly + " COUNT 1 ANY", "*1\r\n$7\r\nPalermo\r\n"},
		{"GEOSEARCHSTORE dst Sicily " + poly + " STOREDIST", ":2\r\n"},
		// The exact distances, which WITHDIST rounds to 166482.0159 and 180861.7725.
		{"ZRANGE dst 0 -1 WITHSCORES", "*4\r\n$7\r\nPalermo\r\n$17\r\n166482.0159238159\r\n$5\r\nedge2\r\n$17\r\n180861.7725170074\r\n"},
		{"GEOSEARCHSTORE dst Sicily " + poly, ":2\r\n"},
		{"GEODIST dst Palermo edge2", s.line("GEODIST Sicily Palermo edge2")},
		{"geosearch Sicily bypolygon 3 14 37 16 37 15 37.4", "*0\r\n"},
	})
}

// polyEngine is an engine over the given region map.
func polyEngine(t *testing.T, m *shard.Map) *session {
	cfg := NewConfig()
	// Correctness, not timing: no shard may miss a deadline under -race.
	e := New(router.New(router.Config{Regions: m, FanoutTimeout: time.Minute}), cfg)
	return &session{t: t, e: e, c: e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")}
}

// randomZone returns n vertices round (lon, lat) within r degrees; with
// self they come in random order, so the ring crosses itself.
func randomZone(rng *rand.Rand, lon, lat, r float64, n int, self bool) []float64 {
	v := make([]float64, 0, 2*n)
	for i := range n {
		a := 2 * math.Pi * (float64(i) + rng.Float64()*0.9) / float64(n)
		d := r * (0.2 + 0.8*rng.Float64())
		v = append(v, lon+d*math.Cos(a), lat+d*math.Sin(a))
	}
	if self {
		rng.Shuffle(n, func(i, j int) {
			v[2*i], v[2*j] = v[2*j], v[2*i]
			v[2*i+1], v[2*j+1] = v[2*j+1], v[2*i+1]
		})
	}
	return v
}

// Across shards, BYPOLYGON finds exactly what a brute-force
// point-in-polygon scan of every member finds, with the same distances, on
// the embedded world map, a one-shard map and a fine grid of shards.
func TestPolygonMatchesBruteForce(t *testing.T) {
	maps := map[string]*shard.Map{
		"world": shard.DefaultMap(),
		"one":   shard.GridMap(-180, geo.MinLat, 180, geo.MaxLat, 1, 1, 200), // one cell: the world
		"grid":  shard.GridMap(4.0, 51.6, 5.6, 52.8, 32, 32, 200),
	}
	rng := rand.New(rand.NewPCG(17, 1))
	type member struct {
		name     string
		lon, lat float64
	}
	var members []member
	sessions := map[string]*session{}
	for name, m := range maps {
		sessions[name] = polyEngine(t, m)
	}
	add := func(lon, lat float64) {
		m := member{fmt.Sprintf("d%d", len(members)), lon, lat}
		for _, s := range sessions {
			s.do("GEOADD", "drivers", ftoa(lon), ftoa(lat), m.name)
		}
		m.lon, m.lat = geo.Decode(geo.Encode(lon, lat))
		members = append(members, m)
	}
	for range 3000 {
		add(3.9+rng.Float64()*1.8, 51.5+rng.Float64()*1.4)
	}
	for k := range 120 {
		v := randomZone(rng, 4.0+rng.Float64()*1.6, 51.6+rng.Float64()*1.2, 0.01+rng.Float64()*0.4, 3+rng.IntN(40), k%4 == 0)
		if k%6 == 1 { // an axis-parallel fence with members exactly on it
			x0, y0 := geo.Decode(geo.Encode(4.5+rng.Float64()*0.5, 52+rng.Float64()*0.3))
			x1, y1 := geo.Decode(geo.Encode(x0+0.05+rng.Float64()*0.2, y0+0.05+rng.Float64()*0.2))
			v = []float64{x0, y0, x1, y0, x1, y1, x0, y1}
			add(x0, (y0+y1)/2)
			add(x1, y1)
		}
		args := []string{"GEOSEARCH", "drivers", "BYPOLYGON", strconv.Itoa(len(v) / 2)}
		for _, x := range v {
			args = append(args, ftoa(x))
		}
		args = append(args, "ASC", "WITHDIST")
		p := geo.NewPolygon(v)
		q := geo.NewPolygonSearch(p)
		var want []string
		for _, m := range members {
			if p.Contains(m.lon, m.lat) {
				want = append(want, m.name+"@"+string(geo.AppendDist(nil, geo.Distance(q.Lon, q.Lat, m.lon, m.lat))))
			}
		}
		sort.Strings(want)
		for name, s := range sessions {
			got, dists := hitsOf(t, s.do(args...))
			if !sort.Float64sAreSorted(dists) {
				t.Fatalf("%s map, zone %d: not in ascending distance: %v", name, k, got)
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s map, zone %d (%v):\n got %v\nwant %v", name, k, v, got, want)
			}
		}
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// hitsOf reads a WITHDIST reply as "member@dist" words and the distances.
func hitsOf(t *testing.T, raw string) ([]string, []float64) {
	t.Helper()
	r, _ := parseReply(raw)
	if raw[0] != '*' {
		t.Fatalf("reply %q", raw)
	}
	var out []string
	var dists []float64
	for _, k := range r.kids {
		m, d := bulkOf(k.kids[0].raw), bulkOf(k.kids[1].raw)
		out = append(out, m+"@"+d)
		f, _ := strconv.ParseFloat(d, 64)
		dists = append(dists, f)
	}
	return out, dists
}

func bulkOf(raw string) string {
	_, rest, _ := strings.Cut(raw, "\r\n")
	return strings.TrimSuffix(rest, "\r\n")
}

// FuzzPolygonArgs feeds arbitrary words after BYPOLYGON: the engine answers
// one well-formed reply, and a GEOSEARCHSTORE that fails leaves its
// destination alone while one that succeeds stores what it counts.
func FuzzPolygonArgs(f *testing.F) {
	for _, seed := range []string{
		"3 4.8 52.3 5.0 52.3 4.9 52.5",
		"4 4.8 52.3 5.0 52.3 5.0 52.5 4.8 52.5 STOREDIST COUNT 2 ANY",
		"3 4.8 52.3 5.0 52.3 4.9 52.5 BYBOX 1 1 km",
		"5 4.8 52.3 5.0 52.3 4.9 52.5",
		"3 180 85.05112878 -180 -85.05112878 0 0 DESC COUNT 1",
		"2147483647 1 1", "-1", "3 nan 1 2 2 3 3", "3 4.8 52.3 4.8 52.3 4.8 52.3 4.8",
	} {
		f.Add([]byte(seed))
	}
	e := testEngine(f)
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	run := func(args ...string) string {
		argv := make([][]byte, len(args))
		for i, a := range args {
			argv[i] = []byte(a)
		}
		c.W.Buf = c.W.Buf[:0]
		e.Exec(c, argv)
		return string(c.W.Buf)
	}
	run("GEOADD", "drivers", "4.9", "52.37", "a", "4.95", "52.4", "b", "4.85", "52.32", "c")
	f.Fuzz(func(t *testing.T, in []byte) {
		words := strings.Fields(string(in))
		if len(words) > 64 {
			return
		}
		run("SET", "dst", "keep")
		reply := run(append([]string{"GEOSEARCHSTORE", "dst", "drivers", "BYPOLYGON"}, words...)...)
		if n, err := replyLen([]byte(reply)); err != "" || n != len(reply) {
			t.Fatalf("%q answered %q: %s", words, reply, err)
		}
		switch reply[0] {
		case '-':
			if got := run("GET", "dst"); got != "$4\r\nkeep\r\n" {
				t.Fatalf("%q failed with %q but dst became %q", words, reply, got)
			}
		case ':':
			if got := run("ZCARD", "dst"); got != reply {
				t.Fatalf("%q stored %q members, ZCARD says %q", words, reply, got)
			}
		default:
			t.Fatalf("%q answered %q", words, reply)
		}
	})
}
