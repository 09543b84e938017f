package plan

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

func TestProposeRefusesNonsense(t *testing.T) {
	w := &Workload{Pings: []Ping{{ID: "a", Lon: 4.9, Lat: 52.37}}}
	cases := []struct {
		name string
		cfg  ProposeConfig
		want string
	}{
		{"tolerance 2 puts everyone in one shard", ProposeConfig{Shards: 4, Tolerance: 2}, "tolerance"},
		{"tolerance 1", ProposeConfig{Shards: 4, Tolerance: 1}, "tolerance"},
		{"negative tolerance", ProposeConfig{Shards: 4, Tolerance: -0.1}, "tolerance"},
		{"NaN tolerance", ProposeConfig{Shards: 4, Tolerance: math.NaN()}, "tolerance"},
		{"no shards", ProposeConfig{Shards: 0}, "shards"},
		{"too many shards", ProposeConfig{Shards: 257}, "shards"},
		{"cell 5 m", ProposeConfig{Shards: 4, CellM: 5}, "cell"},
		{"cell 1000 km", ProposeConfig{Shards: 4, CellM: 1e6}, "cell"},
		{"negative margin", ProposeConfig{Shards: 4, Margin: -1}, "margin"},
		{"margin 1000 km", ProposeConfig{Shards: 4, Margin: 1e6}, "margin"},
		{"negative ping weight", ProposeConfig{Shards: 4, PingWeight: -1}, "ping weight"},
		{"hexagons", ProposeConfig{Shards: 4, Shape: "hex"}, "shape"},
	}
	for _, c := range cases {
		_, _, err := Propose(w, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one about %s", c.name, err, c.want)
		}
	}
}

// TestCompareSaysWhenWorse: a map whose border runs through the busiest
// place loses to the equal grid, and the verdict says so; the grid
// compared with itself ties.
func TestCompareSaysWhenWorse(t *testing.T) {
	b := geo.Rect{MinLon: 4.7, MinLat: 52.3, MaxLon: 4.9, MaxLat: 52.4}
	rng := rand.New(rand.NewPCG(1, 2))
	w := &Workload{}
	// Drivers wander around lon 4.85, where a 1x2 grid has no border but
	// the bad map below has one.
	for i := 0; i < 40; i++ {
		lon, lat := 4.85, 52.35
		for s := 0; s < 30; s++ {
			lon += (rng.Float64() - 0.5) * 0.004
			lat += (rng.Float64() - 0.5) * 0.004
			w.Pings = append(w.Pings, Ping{T: float64(s * 4), ID: string(rune('a' + i)), Lon: lon, Lat: lat})
		}
	}
	for s := 0; s < 100; s++ {
		w.Searches = append(w.Searches, Search{T: float64(s), Lon: 4.85, Lat: 52.35, RadiusM: 1000})
	}
	sortWorkload(w)
	bad := shard.GridMap(4.7, 52.3, 4.9+0.1, 52.4, 4, 1, 200) // borders at 4.775, 4.85, ...
	grid, _ := NaiveGrid(b, 2, 200)
	cases := []struct {
		name   string
		m      *shard.Map
		worse  bool
		phrase string
	}{
		{"border through the busy spot", bad, true, "WORSE than the equal grid"},
		{"the grid itself", grid, false, "beats or ties"},
	}
	for _, c := range cases {
		cmp, err := Compare(w, c.name, c.m, b, 2, 200)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		cmp.WriteVerdict(&out)
		if cmp.Worse() != c.worse || !strings.Contains(out.String(), c.phrase) {
			t.Errorf("%s: worse %v, verdict:\n%s", c.name, cmp.Worse(), out.String())
		}
	}
}

func TestCountMoves(t *testing.T) {
	w := &Workload{Pings: []Ping{
		{T: 0, ID: "a", Lon: 0.5, Lat: 0.5}, {T: 9, ID: "a", Lon: 0.2, Lat: 0.5}, // ends west
		{T: 0, ID: "b", Lon: 1.2, Lat: 0.5}, // east, near the middle
		{T: 0, ID: "c", Lon: 1.9, Lat: 0.5}, // far east
	}}
	cur := shard.GridMap(0, 0, 2, 1, 2, 1, 0) // border at lon 1
	renamed, err := shard.LoadMap([]byte(strings.ReplaceAll(string(cur.GeoJSON()), "cell-", "zone-")))
	if err != nil {
		t.Fatal(err)
	}
	shifted := shard.GridMap(0, 0, 3, 1, 2, 1, 0) // border at lon 1.5
	cases := []struct {
		name  string
		next  *shard.Map
		moved int
	}{
		{"same map", cur, 0},
		{"same areas, new names", renamed, 0},
		{"border moved east past b", shifted, 1},
	}
	for _, c := range cases {
		mv := CountMoves(w, cur, c.next)
		if mv.Members != 3 || mv.Moved != c.moved {
			t.Errorf("%s: %d of %d moved, want %d of 3 (pairs %v)", c.name, mv.Moved, mv.Members, c.moved, mv.Pairs)
		}
	}
}

// TestRefine splits one triangle of a square cut along its diagonal: the
// other shard keeps its area, the pieces cover the split one exactly.
func TestRefine(t *testing.T) {
	cur, err := shard.LoadMap([]byte(`{"type":"FeatureCollection","properties":{"margin":100,"version":"tri"},"features":[
		{"type":"Feature","properties":{"shard":"lower"},"geometry":{"type":"Polygon","coordinates":[[[4.7,52.3],[4.9,52.3],[4.9,52.4],[4.7,52.3]]]}},
		{"type":"Feature","properties":{"shard":"upper"},"geometry":{"type":"Polygon","coordinates":[[[4.7,52.3],[4.9,52.4],[4.7,52.4],[4.7,52.3]]]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	w := &Workload{}
	for i := 0; i < 2000; i++ {
		lon, lat := 4.7+0.2*rng.Float64(), 52.3+0.1*rng.Float64()
		w.Pings = append(w.Pings, Ping{T: float64(i), ID: string(rune('a' + i%50)), Lon: lon, Lat: lat})
	}
	m, _, err := Refine(w, cur, "lower", ProposeConfig{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for id := 0; id < m.Len(); id++ {
		names[m.Name(shard.ID(id))] = true
	}
	for _, n := range []string{"upper", "lower-1", "lower-2", "lower-3"} {
		if !names[n] {
			t.Errorf("refined map lacks %s: %v", n, names)
		}
	}
	for i := 0; i < 500; i++ {
		lon, lat := 4.7+0.2*rng.Float64(), 52.3+0.1*rng.Float64()
		before, after := cur.Name(cur.Locate(lon, lat)), m.Name(m.Locate(lon, lat))
		if before != strings.SplitN(after, "-", 2)[0] {
			t.Fatalf("%v,%v: %s before, %s after", lon, lat, before, after)
		}
	}
	for _, c := range []struct{ shard, want string }{{"nosuch", "no shard"}, {"catchall", "catch-all"}} {
		if _, _, err := Refine(w, cur, c.shard, ProposeConfig{Shards: 2}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("refine %s: %v", c.shard, err)
		}
	}
}

// TestFollowDiagonalGap: two districts on either side of an empty
// diagonal band. Rectangles must cut through one of them; the follow
// shape runs its border down the band and costs less.
func TestFollowDiagonalGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := &Workload{}
	const lon0, lat0, size = 4.7, 52.3, 0.12            // about 8 x 13 km
	side := func(x, y float64) float64 { return y - x } // > 0: upper district
	for d := 0; d < 120; d++ {
		x, y := rng.Float64(), rng.Float64()
		for math.Abs(side(x, y)) < 0.15 {
			x, y = rng.Float64(), rng.Float64()
		}
		up := side(x, y) > 0
		for s := 0; s < 40; s++ {
			nx, ny := x+(rng.Float64()-0.5)*0.06, y+(rng.Float64()-0.5)*0.06
			if nx > 0 && ny > 0 && nx < 1 && ny < 1 && (side(nx, ny) > 0.15) == up && math.Abs(side(nx, ny)) >= 0.15 {
				x, y = nx, ny
			}
			w.Pings = append(w.Pings, Ping{T: float64(4 * s), ID: "d" + string(rune('A'+d)), Lon: lon0 + size*x, Lat: lat0 + size*y})
			if s%4 == 0 {
				w.Searches = append(w.Searches, Search{T: float64(4 * s), Lon: lon0 + size*x, Lat: lat0 + size*y, RadiusM: 500})
			}
		}
	}
	sortWorkload(w)
	reps := map[string]*Report{}
	for _, shape := range []string{"rect", "follow"} {
		m, _, err := Propose(w, ProposeConfig{Shards: 2, Shape: shape})
		if err != nil {
			t.Fatal(err)
		}
		reps[shape] = Replay(shape, m, w)
		if shape == "follow" {
			vertices := 0
			for _, poly := range m.Areas(0) {
				vertices += len(poly[0])
			}
			if vertices <= 5 {
				t.Errorf("follow gave a rectangle (%d vertices)", vertices)
			}
		}
	}
	var sum strings.Builder
	WriteSummary(&sum, reps["rect"], reps["follow"])
	t.Logf("\n%s", sum.String())
	r, f := reps["rect"], reps["follow"]
	if !(f.FanOutShare() < r.FanOutShare() && f.Handoffs+f.FlapsSuppressed < r.Handoffs+r.FlapsSuppressed) {
		t.Errorf("follow does not beat rectangles on a diagonal gap")
	}
}
