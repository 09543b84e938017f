package shard

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"geoshard/geo"
)

// rmFC wraps features (JSON text) in a FeatureCollection.
func rmFC(props string, features ...string) string {
	p := ""
	if props != "" {
		p = `"properties": ` + props + `, `
	}
	return `{"type": "FeatureCollection", ` + p + `"features": [` + strings.Join(features, ",") + `]}`
}

// rmRect is a Polygon feature covering a rectangle.
func rmRect(name string, minLon, minLat, maxLon, maxLat float64) string {
	return fmt.Sprintf(`{"type": "Feature", "properties": {"shard": %q}, "geometry": {"type": "Polygon", "coordinates": [[[%v,%v],[%v,%v],[%v,%v],[%v,%v],[%v,%v]]]}}`,
		name, minLon, minLat, maxLon, minLat, maxLon, maxLat, minLon, maxLat, minLon, minLat)
}

// rmPolyFeature is a feature with the given geometry type and coordinates.
func rmPolyFeature(name, typ, coords string) string {
	return fmt.Sprintf(`{"type": "Feature", "properties": {"shard": %q}, "geometry": {"type": %q, "coordinates": %s}}`, name, typ, coords)
}

func rmMustLoad(t testing.TB, data string) *Map {
	t.Helper()
	m, err := LoadMap([]byte(data))
	if err != nil {
		t.Fatalf("LoadMap: %v", err)
	}
	return m
}

func TestLoadMapErrors(t *testing.T) {
	sq := `[[[0,0],[10,0],[10,10],[0,10],[0,0]]]`
	many := `{"type":"FeatureCollection","features":[` + strings.Repeat(`{},`, 64999) + `{}]}`
	tests := []struct {
		name string
		data string
		want []string // every one must appear in the error
	}{
		{"invalid JSON", `{"type": `, []string{"invalid JSON"}},
		{"trailing data", rmFC("", rmRect("a", 0, 0, 1, 1)) + ` {}`, []string{"data after the top-level value"}},
		{"not a collection", rmRect("a", 0, 0, 1, 1), []string{"not a GeoJSON FeatureCollection"}},
		{"array", `[]`, []string{"not a GeoJSON FeatureCollection"}},
		{"no features member", `{"type": "FeatureCollection"}`, []string{"empty map (no features)"}},
		{"empty features", rmFC(""), []string{"empty map (no features)"}},
		{"too many shards", many, []string{"too many shards: 65000 features and the catch-all, at most 65000"}},
		{"not a feature", rmFC("", `{"type": "Polygon"}`), []string{"feature 0: not a GeoJSON Feature"}},
		{"no shard name", rmFC("", `{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": `+sq+`}}`),
			[]string{"feature 0: no shard name"}},
		{"shard name not a string", rmFC("", `{"type": "Feature", "properties": {"shard": 3}, "geometry": {"type": "Polygon", "coordinates": `+sq+`}}`),
			[]string{"feature 0: no shard name"}},
		{"no geometry", rmFC("", `{"type": "Feature", "properties": {"shard": "a"}, "geometry": null}`),
			[]string{`feature 0 (shard "a"): no geometry`}},
		{"duplicate name", rmFC("", rmRect("a", 0, 0, 1, 1), rmRect("b", 2, 0, 3, 1), rmRect("a", 4, 0, 5, 1)),
			[]string{`feature 2 (shard "a"): duplicate shard name, also used by feature 0`}},
		{"catch-all name", rmFC("", rmRect("catchall", 0, 0, 1, 1)), []string{`feature 0 (shard "catchall"): shard name is the catch-all's`}},
		{"point geometry", rmFC("", rmPolyFeature("a", "Point", `[1, 2]`)),
			[]string{`feature 0 (shard "a"): unsupported geometry type "Point"`}},
		{"line geometry", rmFC("", rmRect("a", 0, 0, 1, 1), rmPolyFeature("b", "LineString", `[[1, 2], [3, 4]]`)),
			[]string{`feature 1 (shard "b"): unsupported geometry type "LineString"`}},
		{"ring of 3 points", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,0],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 has 3 points, a ring needs at least 4`}},
		{"ring of 4 points, 2 distinct", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,0],[1,0],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 has fewer than 4 points once repeated points are dropped`}},
		{"unclosed ring", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,0],[1,1],[0,1]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 is not closed`}},
		{"unclosed ring in multipolygon", rmFC("", rmPolyFeature("a", "MultiPolygon", `[`+sq+`, [[[20,0],[21,0],[21,1],[20,1]]]]`)),
			[]string{`feature 0 (shard "a"): polygon 1: ring 0 is not closed`}},
		{"bow tie", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,1],[1,0],[0,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 intersects itself`}},
		{"figure eight touching at a vertex", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[2,0],[1,1],[2,2],[0,2],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 intersects itself`}},
		{"spike", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[2,0],[1,0],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 intersects itself`}},
		{"zero area", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,1],[2,2],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 intersects itself`}},
		{"longitude out of range", rmFC("", rmRect("a", 170, 0, 190, 1)),
			[]string{`feature 0 (shard "a"): ring 0, point 1: coordinate (190, 0) out of range`}},
		{"latitude out of range", rmFC("", rmRect("a", 0, 80, 1, 86)),
			[]string{`feature 0 (shard "a"): ring 0, point 2: coordinate (1, 86) out of range`}},
		{"coordinate not a number", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],["1",0],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0, point 1: coordinate "1" is not a number`}},
		{"coordinate null", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,null],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0, point 1: coordinate null is not a number`}},
		{"coordinate too large", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1e999,0],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0, point 1: coordinate 1e999 is not a number`}},
		{"position too short", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1],[1,1],[0,0]]]`)),
			[]string{`feature 0 (shard "a"): ring 0, point 1: not a [lon, lat] position`}},
		{"overlapping areas", rmFC("", rmRect("a", 0, 0, 10, 10), rmRect("b", 5, 5, 15, 15)),
			[]string{`area overlaps the area of feature`, `shard "a"`, `shard "b"`}},
		{"area inside another", rmFC("", rmRect("a", 0, 0, 10, 10), rmRect("b", 2, 2, 3, 3)),
			[]string{`feature 1 (shard "b"): area overlaps the area of feature 0 (shard "a")`}},
		{"identical areas", rmFC("", rmRect("a", 0, 0, 10, 10), rmRect("b", 0, 0, 10, 10)),
			[]string{`area overlaps the area of feature`}},
		{"area inside sharing an edge", rmFC("", rmRect("a", 0, 0, 10, 10), rmRect("b", 0, 0, 5, 10)),
			[]string{`area overlaps the area of feature`}},
		{"diamond through corners", rmFC("", rmRect("a", 0, 0, 2, 2), rmPolyFeature("b", "Polygon", `[[[1,-1],[3,1],[1,3],[-1,1],[1,-1]]]`)),
			[]string{`area overlaps the area of feature`}},
		{"polygons of one shard overlap", rmFC("", rmPolyFeature("a", "MultiPolygon", `[`+sq+`, [[[5,5],[15,5],[15,15],[5,15],[5,5]]]]`)),
			[]string{`feature 0 (shard "a"): polygons 0 and 1 overlap`}},
		{"hole outside its ring", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[20,1],[21,1],[21,2],[20,1]]]`)),
			[]string{`feature 0 (shard "a"): ring 1 is a hole outside its outer ring`}},
		{"hole crossing its ring", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[5,5],[15,5],[15,6],[5,5]]]`)),
			[]string{`feature 0 (shard "a"): ring 0 and ring 1 cross or overlap`}},
		{"negative margin", rmFC(`{"margin": -1}`, rmRect("a", 0, 0, 1, 1)), []string{"margin is negative: -1"}},
		{"NaN margin", rmFC(`{"margin": "NaN"}`, rmRect("a", 0, 0, 1, 1)), []string{`margin is not a finite number of metres: "NaN"`}},
		{"bad version", rmFC(`{"version": [1]}`, rmRect("a", 0, 0, 1, 1)), []string{`version is not a string or number: [1]`}},
		{"bad catchall", rmFC(`{"catchall": ""}`, rmRect("a", 0, 0, 1, 1)), []string{`catchall is not a non-empty string`}},
		{"several problems reported together", rmFC("", rmRect("a", 0, 0, 1, 1), rmPolyFeature("b", "Point", `[1, 2]`), rmRect("c", 0, 0, 1, 200)),
			[]string{`feature 1 (shard "b"): unsupported geometry type`, `feature 2 (shard "c"): ring 0, point 2`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := LoadMap([]byte(tc.data))
			if err == nil {
				t.Fatalf("LoadMap accepted the map (%d shards)", m.Len())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "region map: ") {
				t.Errorf("error %q does not say it is about the region map", err)
			}
		})
	}
}

func TestLoadMapAccepts(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		shards   []string // catch-all last
		margin   float64
		version  string // "" checks only that there is one
		catchAll string
	}{
		{"defaults", rmFC("", rmRect("a", 0, 0, 1, 1)), []string{"a", "catchall"}, 200, "", "catchall"},
		{"collection properties", rmFC(`{"margin": 50.5, "version": "v7", "catchall": "rest"}`, rmRect("a", 0, 0, 1, 1), rmRect("b", 1, 0, 2, 1)),
			[]string{"a", "b", "rest"}, 50.5, "v7", "rest"},
		{"numeric version, zero margin", rmFC(`{"margin": 0, "version": 12}`, rmRect("a", 0, 0, 1, 1)), []string{"a", "catchall"}, 0, "12", "catchall"},
		{"shared edges and corners, clockwise ring, altitude", rmFC("", rmRect("a", 0, 0, 1, 1),
			rmPolyFeature("b", "Polygon", `[[[1,0,5],[1,1,5],[2,1,5],[2,0,5],[1,0,5]]]`), rmRect("c", 1, 1, 2, 2)),
			[]string{"a", "b", "c", "catchall"}, 200, "", "catchall"},
		{"T-junction", rmFC("", rmRect("a", 0, 0, 2, 1), rmRect("b", 0, 1, 1, 2), rmRect("c", 1, 1, 2, 2)),
			[]string{"a", "b", "c", "catchall"}, 200, "", "catchall"},
		{"hole touching the shell at a vertex", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[0,0],[5,2],[2,5],[0,0]]]`)),
			[]string{"a", "catchall"}, 200, "", "catchall"},
		{"island in a hole", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[2,2],[8,2],[8,8],[2,8],[2,2]]]`), rmRect("b", 3, 3, 7, 7)),
			[]string{"a", "b", "catchall"}, 200, "", "catchall"},
		{"island filling a hole", rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[2,2],[8,2],[8,8],[2,8],[2,2]]]`), rmRect("b", 2, 2, 8, 8)),
			[]string{"a", "b", "catchall"}, 200, "", "catchall"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := rmMustLoad(t, tc.data)
			var names []string
			for id := 0; id < m.Len(); id++ {
				names = append(names, m.Name(ID(id)))
				if got, ok := m.Lookup(m.Name(ID(id))); !ok || got != ID(id) {
					t.Errorf("Lookup(%q) = %d, %v", m.Name(ID(id)), got, ok)
				}
			}
			if !slices.Equal(names, tc.shards) {
				t.Errorf("shards %q, want %q", names, tc.shards)
			}
			if m.Name(m.CatchAll()) != tc.catchAll || int(m.CatchAll()) != m.Len()-1 {
				t.Errorf("catch-all %d %q", m.CatchAll(), m.Name(m.CatchAll()))
			}
			if m.Margin() != tc.margin {
				t.Errorf("margin %v, want %v", m.Margin(), tc.margin)
			}
			if tc.version != "" && m.Version() != tc.version || m.Version() == "" {
				t.Errorf("version %q, want %q", m.Version(), tc.version)
			}
			if _, ok := m.Lookup("nope"); ok {
				t.Error("Lookup of an unknown name succeeded")
			}
			if m.Name(ID(m.Len())) != "" {
				t.Error("Name of an out-of-range ID is not empty")
			}
		})
	}
}

func TestLoadMapFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.geojson")
	if err := os.WriteFile(path, []byte(rmFC("", rmRect("a", 0, 0, 1, 1))), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := LoadMapFile(path)
	if err != nil || m.Len() != 2 {
		t.Fatalf("LoadMapFile: %v", err)
	}
	if _, err := LoadMapFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("LoadMapFile of a missing file succeeded")
	}
	bad := filepath.Join(t.TempDir(), "bad.geojson")
	if err := os.WriteFile(bad, []byte(rmFC("")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadMapFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadMapFile error %v does not name the file", err)
	}
}

// rmBrute is the reference owner: a plain scan of every polygon, inside
// the outer ring and outside every hole.
func rmBrute(m *Map, lon, lat float64) ID {
	// The documented edge rules: lon 180 is -180 first, and the world's
	// top edge belongs to the polygon below it.
	if lat == rmMaxLat {
		lat = math.Nextafter(lat, 0)
	}
	if lon == 180 {
		if id := rmBrute(m, -180, lat); id != m.CatchAll() {
			return id
		}
		lon = math.Nextafter(180, 0)
	}
	for id := 0; id < m.Len(); id++ {
		for _, pi := range m.byShard[id] {
			poly := m.polys[pi].rings
			in := rmRingContains(poly[0], lon, lat)
			for _, hole := range poly[1:] {
				if rmRingContains(hole, lon, lat) {
					in = false
				}
			}
			if in {
				return ID(id)
			}
		}
	}
	return m.CatchAll()
}

// rmMaybeNear lists the shards whose bounding boxes come within twice
// the margin of the point (across the antimeridian too), and the
// catch-all: a superset of those within the margin, to keep checks cheap.
func rmMaybeNear(m *Map, lon, lat float64) []ID {
	dy := 2*m.Margin()/111000 + 1e-6
	dx := math.Min(360, dy/math.Cos(math.Min(89, math.Abs(lat)+1)*math.Pi/180))
	var out []ID
	for id := ID(0); int(id) < m.Len(); id++ {
		if id == m.CatchAll() {
			out = append(out, id)
			continue
		}
		for _, pi := range m.byShard[id] {
			b := m.polys[pi].bbox
			if lat < b.MinLat-dy || lat > b.MaxLat+dy {
				continue
			}
			if x := lon; x >= b.MinLon-dx && x <= b.MaxLon+dx ||
				x+360 >= b.MinLon-dx && x+360 <= b.MaxLon+dx ||
				x-360 >= b.MinLon-dx && x-360 <= b.MaxLon+dx {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// rmRandomGrid is a 1,000-cell grid map over a random box.
func rmRandomGrid(rng *rand.Rand) *Map {
	minLon := -170 + rng.Float64()*300
	minLat := -80 + rng.Float64()*140
	w := 0.01 + rng.Float64()*math.Min(20, 179-minLon)
	h := 0.01 + rng.Float64()*math.Min(20, 84-minLat)
	return GridMap(minLon, minLat, minLon+w, minLat+h, 40, 25, rng.Float64()*2000)
}

// rmTestMaps are the maps the property tests run on.
func rmTestMaps(t *testing.T) map[string]*Map {
	rng := rand.New(rand.NewPCG(1, 2))
	return map[string]*Map{
		"world":       DefaultMap(),
		"grid":        rmRandomGrid(rng),
		"grid-small":  GridMap(4.80, 52.30, 5.00, 52.42, 50, 20, 200),
		"antimerid":   rmAntimeridianMap(t),
		"holes":       rmHolesMap(t),
		"world-grid":  GridMap(-180, rmMinLat, 180, rmMaxLat, 36, 17, 500),
		"margin-zero": GridMap(-1, -1, 1, 1, 10, 10, 0),
	}
}

// rmPointNear returns a random point in or around the map's polygons, so
// that many points fall near borders.
func rmPointNear(rng *rand.Rand, m *Map) (float64, float64) {
	if rng.IntN(4) == 0 {
		return -180 + rng.Float64()*360, rmMinLat + rng.Float64()*(rmMaxLat-rmMinLat)
	}
	id := ID(rng.IntN(m.Len() - 1))
	b, _ := m.Bounds(id)
	w, h := b.MaxLon-b.MinLon, b.MaxLat-b.MinLat
	lon := b.MinLon - w/4 + rng.Float64()*w*1.5
	lat := b.MinLat - h/4 + rng.Float64()*h*1.5
	if rng.IntN(5) == 0 { // exactly on a vertex's meridian or parallel
		poly := m.Areas(id)[0][0]
		v := poly[rng.IntN(len(poly))]
		if rng.IntN(2) == 0 {
			lon = v[0]
		} else {
			lat = v[1]
		}
	}
	return math.Max(-180, math.Min(180, lon)), math.Max(rmMinLat, math.Min(rmMaxLat, lat))
}

func TestLocateMatchesBruteForce(t *testing.T) {
	for name, m := range rmTestMaps(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(3, 4))
			for i := 0; i < 3000; i++ {
				lon, lat := rmPointNear(rng, m)
				got := m.Locate(lon, lat)
				want := rmBrute(m, lon, lat)
				if got == want {
					continue
				}
				// On a border the two scans may pick different sides; both
				// must then be at distance 0.
				if m.Distance(want, lon, lat) > 1e-6 || (want != m.CatchAll() && rmOnBorder(m, want, lon, lat) == false) {
					t.Fatalf("Locate(%v, %v) = %s, brute force says %s", lon, lat, m.Name(got), m.Name(want))
				}
			}
		})
	}
}

// rmOnBorder reports whether the point lies on the boundary of a shard.
func rmOnBorder(m *Map, id ID, lon, lat float64) bool {
	for _, pi := range m.byShard[id] {
		if m.polys[pi].onBoundary(lon, lat, 1e-9) {
			return true
		}
	}
	return false
}

func TestDistance(t *testing.T) {
	for name, m := range rmTestMaps(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(5, 6))
			for i := 0; i < 1000; i++ {
				lon, lat := rmPointNear(rng, m)
				own := m.Locate(lon, lat)
				if d := m.Distance(own, lon, lat); d != 0 {
					t.Fatalf("Distance(Locate(%v, %v) = %s) = %v, want 0", lon, lat, m.Name(own), d)
				}
				for _, id := range rmMaybeNear(m, lon, lat) {
					d := m.Distance(id, lon, lat)
					if id != own && !(d >= 0) {
						t.Fatalf("Distance(%s, %v, %v) = %v", m.Name(id), lon, lat, d)
					}
				}
			}
		})
	}
	// Distance grows with the distance outside, and matches the
	// great-circle figure to a fraction of a percent near the border.
	m := GridMap(0, 0, 1, 1, 1, 1, 200)
	cell, _ := m.Lookup("cell-0-0")
	prev := 0.0
	for _, dx := range []float64{0.0001, 0.001, 0.01, 0.1, 1, 5} {
		d := m.Distance(cell, 1+dx, 0.5)
		want := geo.Distance(1, 0.5, 1+dx, 0.5)
		if d <= prev || math.Abs(d-want) > want*0.003 {
			t.Errorf("Distance at %v° east = %v, want about %v and more than %v", dx, d, want, prev)
		}
		prev = d
		if got := m.Distance(m.CatchAll(), 1+dx, 0.5); got != 0 {
			t.Errorf("catch-all Distance outside every polygon = %v", got)
		}
	}
	// Inside, the catch-all is as far as the nearest border of the grid.
	if got, want := m.Distance(m.CatchAll(), 0.9, 0.5), geo.Distance(0.9, 0.5, 1, 0.5); math.Abs(got-want) > want*0.003 {
		t.Errorf("catch-all Distance from inside = %v, want %v", got, want)
	}
	if d := m.Distance(ID(m.Len()), 0, 0); !math.IsInf(d, 1) {
		t.Errorf("Distance of an unknown ID = %v", d)
	}
	// In a map covering the world the catch-all is only beyond the poles'
	// limit: far from the equator, near from the top edge.
	w := DefaultMap()
	if d := w.Distance(w.CatchAll(), 0, 0); d < 9e6 {
		t.Errorf("world catch-all Distance at (0, 0) = %v", d)
	}
	if d := w.Distance(w.CatchAll(), 10, 85.05); d > 200 {
		t.Errorf("world catch-all Distance at (10, 85.05) = %v", d)
	}
}

// rmRectAround is a random rectangle around (lon, lat), up to ~50 km.
func rmRectAround(rng *rand.Rand, lon, lat float64) geo.Rect {
	size := math.Pow(10, -4+rng.Float64()*3.7)
	r := geo.Rect{
		MinLon: lon - rng.Float64()*size, MaxLon: lon + rng.Float64()*size,
		MinLat: lat - rng.Float64()*size, MaxLat: lat + rng.Float64()*size,
	}
	r.MinLon, r.MaxLon = math.Max(-180, r.MinLon), math.Min(180, r.MaxLon)
	r.MinLat, r.MaxLat = math.Max(rmMinLat, r.MinLat), math.Min(rmMaxLat, r.MaxLat)
	return r
}

func TestTouchingNeverMisses(t *testing.T) {
	for name, m := range rmTestMaps(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, 8))
			var buf []ID
			for i := 0; i < 700; i++ {
				lon, lat := rmPointNear(rng, m)
				r := rmRectAround(rng, lon, lat)
				buf = m.Touching(r, buf[:0])
				if !slices.IsSorted(buf) || len(slices.Compact(slices.Clone(buf))) != len(buf) {
					t.Fatalf("Touching(%+v) = %v, not sorted and unique", r, buf)
				}
				for k := 0; k < 5; k++ {
					plon := r.MinLon + rng.Float64()*(r.MaxLon-r.MinLon)
					plat := r.MinLat + rng.Float64()*(r.MaxLat-r.MinLat)
					switch k {
					case 0:
						plon, plat = r.MinLon, r.MinLat
					case 1:
						plon, plat = r.MaxLon, r.MaxLat
					}
					if own := m.Locate(plon, plat); !slices.Contains(buf, own) {
						t.Fatalf("Touching(%+v) = %v misses %s, the owner of (%v, %v)", r, rmNames(m, buf), m.Name(own), plon, plat)
					}
					for _, id := range rmMaybeNear(m, plon, plat) {
						if m.Distance(id, plon, plat) <= m.Margin() && !slices.Contains(buf, id) {
							t.Fatalf("Touching(%+v) = %v misses %s, %vm from (%v, %v)", r, rmNames(m, buf), m.Name(id), m.Distance(id, plon, plat), plon, plat)
						}
					}
				}
			}
		})
	}
}

func rmNames(m *Map, ids []ID) []string {
	var out []string
	for _, id := range ids {
		out = append(out, m.Name(id))
	}
	return out
}

func TestTouchingDeepInside(t *testing.T) {
	tests := []struct {
		name string
		m    *Map
		r    geo.Rect
		want []string
	}{
		{"grid cell", GridMap(4.80, 52.30, 5.00, 52.42, 20, 12, 200),
			geo.Rect{MinLon: 4.853, MinLat: 52.353, MaxLon: 4.857, MaxLat: 52.357}, []string{"cell-5-5"}},
		{"grid cell, margin reaches the west neighbour", GridMap(4.80, 52.30, 5.00, 52.42, 20, 12, 200),
			geo.Rect{MinLon: 4.8502, MinLat: 52.353, MaxLon: 4.8505, MaxLat: 52.357}, []string{"cell-4-5", "cell-5-5"}},
		{"grid edge, margin reaches the catch-all", GridMap(4.80, 52.30, 5.00, 52.42, 20, 12, 200),
			geo.Rect{MinLon: 4.8001, MinLat: 52.353, MaxLon: 4.8005, MaxLat: 52.357}, []string{"cell-0-5", "catchall"}},
		{"world: Amsterdam", DefaultMap(), geo.Rect{MinLon: 4.8, MinLat: 52.3, MaxLon: 5.0, MaxLat: 52.4}, []string{"europe"}},
		{"world: Tokyo", DefaultMap(), geo.Rect{MinLon: 139.6, MinLat: 35.6, MaxLon: 139.8, MaxLat: 35.8}, []string{"east-asia"}},
		{"world: New York", DefaultMap(), geo.Rect{MinLon: -74.1, MinLat: 40.6, MaxLon: -73.9, MaxLat: 40.8}, []string{"north-america"}},
		{"world: beyond the top edge", DefaultMap(), geo.Rect{MinLon: 10, MinLat: 85.0515, MaxLon: 11, MaxLat: 89}, []string{"europe", "catchall"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rmNames(tc.m, tc.m.Touching(tc.r, nil))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Touching(%+v) = %q, want %q", tc.r, got, tc.want)
			}
		})
	}
}

func TestTouchingAppends(t *testing.T) {
	m := GridMap(0, 0, 2, 1, 2, 1, 200)
	dst := []ID{42}
	dst = m.Touching(geo.Rect{MinLon: 0.9, MinLat: 0.4, MaxLon: 1.1, MaxLat: 0.6}, dst)
	if want := []ID{42, 0, 1}; !slices.Equal(dst, want) {
		t.Errorf("Touching appended %v, want %v", dst, want)
	}
	all := m.Touching(geo.Rect{MinLon: math.NaN()}, nil)
	if len(all) != m.Len() {
		t.Errorf("Touching of a NaN rect = %v, want every shard", all)
	}
	whole := m.Touching(geo.Rect{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}, nil)
	if len(whole) != m.Len() {
		t.Errorf("Touching of the whole world = %v, want every shard", whole)
	}
}

// rmAntimeridianMap has a shard split at ±180 into two polygons, and
// separate shards meeting across the antimeridian.
func rmAntimeridianMap(t testing.TB) *Map {
	return rmMustLoad(t, rmFC(`{"margin": 300}`,
		rmPolyFeature("pacific", "MultiPolygon", `[[[[170,-10],[180,-10],[180,10],[170,10],[170,-10]]], [[[-180,-10],[-170,-10],[-170,10],[-180,10],[-180,-10]]]]`),
		rmRect("east", 170, 10, 180, 20),
		rmRect("west", -180, 10, -170, 20),
		rmRect("east-only", 170, 20, 180, 30),
	))
}

func TestAntimeridian(t *testing.T) {
	m := rmAntimeridianMap(t)
	id := func(name string) ID {
		id, ok := m.Lookup(name)
		if !ok {
			t.Fatalf("no shard %q", name)
		}
		return id
	}
	locate := []struct {
		lon, lat float64
		want     string
	}{
		{179.9, 0, "pacific"}, {-179.9, 0, "pacific"}, {180, 0, "pacific"}, {-180, 0, "pacific"},
		{180, 15, "west"}, {-180, 15, "west"}, {179.99, 15, "east"},
		{180, 25, "east-only"}, {-180, 25, "catchall"}, {540, 0, "pacific"}, {-179.9 - 720, 15, "west"},
	}
	for _, tc := range locate {
		if got := m.Name(m.Locate(tc.lon, tc.lat)); got != tc.want {
			t.Errorf("Locate(%v, %v) = %s, want %s", tc.lon, tc.lat, got, tc.want)
		}
	}
	// East of the antimeridian by 100 m, the shard west of it is 100 m away.
	if d := m.Distance(id("west"), 179.9991, 15); d < 90 || d > 110 {
		t.Errorf("Distance across the antimeridian = %v, want ~100", d)
	}
	touching := []struct {
		r    geo.Rect
		want []string
	}{
		{geo.Rect{MinLon: 179.999, MinLat: 15, MaxLon: 179.9995, MaxLat: 15.001}, []string{"east", "west"}},
		{geo.Rect{MinLon: -179.9995, MinLat: 15, MaxLon: -179.999, MaxLat: 15.001}, []string{"east", "west"}},
		{geo.Rect{MinLon: 179.9, MinLat: 15, MaxLon: 179.95, MaxLat: 15.001}, []string{"east"}},
		{geo.Rect{MinLon: 179.999, MinLat: 25, MaxLon: 180, MaxLat: 25.001}, []string{"east-only", "catchall"}},
		{geo.Rect{MinLon: 179.999, MinLat: 0, MaxLon: 181, MaxLat: 0.001}, []string{"pacific"}},
		{geo.Rect{MinLon: 179.5, MinLat: 0, MaxLon: -179.5, MaxLat: 0.001}, []string{"pacific"}},
	}
	for _, tc := range touching {
		got := rmNames(m, m.Touching(tc.r, nil))
		want := slices.Clone(tc.want)
		slices.SortFunc(want, func(a, b string) int { return int(id(a)) - int(id(b)) })
		if !slices.Equal(got, want) {
			t.Errorf("Touching(%+v) = %q, want %q", tc.r, got, want)
		}
	}
}

// rmHolesMap is a square with a hole, an island inside the hole, and
// the rest of the hole left to the catch-all.
func rmHolesMap(t testing.TB) *Map {
	return rmMustLoad(t, rmFC(`{"margin": 1000}`,
		rmPolyFeature("ring", "Polygon", `[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[2,2],[8,2],[8,8],[2,8],[2,2]]]`),
		rmRect("island", 4, 4, 6, 6),
	))
}

// TestSharedBorders checks that borders two shards share, exactly or in
// part (T-junctions), are not borders with the catch-all.
func TestSharedBorders(t *testing.T) {
	tests := []struct {
		name     string
		m        *Map
		lon, lat float64
		want     float64 // Distance(catch-all) in degrees of latitude
	}{
		{"T-junction", rmMustLoad(t, rmFC("", rmRect("a", 0, 0, 2, 1), rmRect("b", 0, 1, 1, 2), rmRect("c", 1, 1, 2, 2))), 1, 1, 1},
		{"offset rows", rmMustLoad(t, rmFC("", rmRect("a", 0, 0, 2, 1), rmRect("b", 0.5, 1, 2.5, 2), rmRect("c", -1.5, 1, 0.5, 2))), 1, 1, 1},
		{"grid", GridMap(0, 0, 4, 4, 4, 4, 0), 2, 2, 2},
		{"across the antimeridian", rmAntimeridianMap(t), 180, 15, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.m.Distance(tc.m.CatchAll(), tc.lon, tc.lat) / rmMetresPerDeg
			if math.Abs(got-tc.want) > tc.want*0.01 {
				t.Errorf("Distance(catch-all, %v, %v) = %v°, want %v°", tc.lon, tc.lat, got, tc.want)
			}
			r := geo.Rect{MinLon: tc.lon - 0.01, MinLat: tc.lat - 0.01, MaxLon: tc.lon + 0.01, MaxLat: tc.lat + 0.01}
			if ids := tc.m.Touching(r, nil); slices.Contains(ids, tc.m.CatchAll()) {
				t.Errorf("Touching(%+v) = %q names the catch-all", r, rmNames(tc.m, ids))
			}
		})
	}
}

// FuzzLoadMap checks that no input makes LoadMap panic, and that what it
// accepts survives a GeoJSON round trip.
func FuzzLoadMap(f *testing.F) {
	f.Add([]byte(rmFC("", rmRect("a", 0, 0, 1, 1), rmRect("b", 1, 0, 2, 1))))
	f.Add([]byte(rmFC(`{"margin": 5, "version": 2}`, rmPolyFeature("a", "MultiPolygon", `[[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[2,2],[8,2],[8,8],[2,8],[2,2]]], [[[3,3],[4,3],[4,4],[3,3]]]]`))))
	f.Add([]byte(rmFC("", rmPolyFeature("a", "Polygon", `[[[0,0],[1,1],[1,0],[0,1],[0,0]]]`))))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadMap(data)
		if err != nil {
			return
		}
		back, err := LoadMap(m.GeoJSON())
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if back.Len() != m.Len() {
			t.Fatalf("round trip: %d shards, had %d", back.Len(), m.Len())
		}
		m.Locate(0.5, 0.5)
		m.Touching(geo.Rect{MinLon: 0, MinLat: 0, MaxLon: 1, MaxLat: 1}, nil)
	})
}

func TestHoles(t *testing.T) {
	m := rmHolesMap(t)
	ring, _ := m.Lookup("ring")
	island, _ := m.Lookup("island")
	tests := []struct {
		lon, lat float64
		want     ID
	}{
		{1, 1, ring}, {5, 5, island}, {3, 3, m.CatchAll()}, {9, 5, ring}, {11, 5, m.CatchAll()},
	}
	for _, tc := range tests {
		if got := m.Locate(tc.lon, tc.lat); got != tc.want {
			t.Errorf("Locate(%v, %v) = %s, want %s", tc.lon, tc.lat, m.Name(got), m.Name(tc.want))
		}
	}
	if d := m.Distance(ring, 5, 5); math.Abs(d-3*rmMetresPerDeg) > 3*rmMetresPerDeg*0.005 {
		t.Errorf("Distance(ring) from the hole's centre = %v, want ~3°", d)
	}
	if d := m.Distance(m.CatchAll(), 5, 5); math.Abs(d-rmMetresPerDeg) > 1000 {
		t.Errorf("Distance(catch-all) from the island's centre = %v, want ~1°", d)
	}
	got := rmNames(m, m.Touching(geo.Rect{MinLon: 2.5, MinLat: 2.5, MaxLon: 3.5, MaxLat: 3.5}, nil))
	if !slices.Equal(got, []string{"catchall"}) {
		t.Errorf("Touching inside the hole = %q", got)
	}
}

func TestGeoJSONRoundTrip(t *testing.T) {
	maps := rmTestMaps(t)
	maps["numeric-version"] = rmMustLoad(t, rmFC(`{"version": 3.5, "catchall": "else"}`, rmRect("a", 0, 0, 1, 1)))
	for name, m := range maps {
		t.Run(name, func(t *testing.T) {
			out := m.GeoJSON()
			back, err := LoadMap(out)
			if err != nil {
				t.Fatalf("LoadMap(GeoJSON()): %v", err)
			}
			if back.Len() != m.Len() || back.Margin() != m.Margin() || back.Version() != m.Version() || back.CatchAll() != m.CatchAll() {
				t.Fatalf("round trip changed the map: %v vs %v", back, m)
			}
			for id := ID(0); int(id) < m.Len(); id++ {
				if back.Name(id) != m.Name(id) || fmt.Sprint(back.Areas(id)) != fmt.Sprint(m.Areas(id)) {
					t.Fatalf("round trip changed shard %d %q", id, m.Name(id))
				}
			}
			if again := back.GeoJSON(); !bytes.Equal(again, out) {
				t.Errorf("second round trip differs")
			}
		})
	}
}

func TestAreasIsACopy(t *testing.T) {
	m := GridMap(0, 0, 1, 1, 1, 1, 0)
	a := m.Areas(0)
	a[0][0][0] = [2]float64{50, 50}
	if m.Areas(0)[0][0][0] == a[0][0][0] {
		t.Error("Areas returned the map's own slice")
	}
	if m.Areas(m.CatchAll()) != nil {
		t.Error("the catch-all has areas")
	}
}

func TestGridMap(t *testing.T) {
	m := GridMap(-10, -5, 10, 5, 4, 2, 150)
	if m.Len() != 9 || m.Margin() != 150 || m.Name(m.CatchAll()) != "catchall" {
		t.Fatalf("GridMap: %v", m)
	}
	tests := []struct {
		lon, lat float64
		want     string
	}{
		{-9, -4, "cell-0-0"}, {9, 4, "cell-3-1"}, {-4, 1, "cell-1-1"}, {0, 0, "cell-2-1"}, {11, 0, "catchall"},
	}
	for _, tc := range tests {
		if got := m.Name(m.Locate(tc.lon, tc.lat)); got != tc.want {
			t.Errorf("Locate(%v, %v) = %s, want %s", tc.lon, tc.lat, got, tc.want)
		}
	}
	for _, bad := range [][7]float64{{0, 0, 0, 1, 1, 1, 0}, {0, 0, 1, 1, 0, 1, 0}, {0, 0, 1, 1, 1, 1, -1}, {0, 0, 1, 1, 1, 1, math.NaN()}, {0, 0, 1, 90, 1, 1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("GridMap%v did not panic", bad)
				}
			}()
			GridMap(bad[0], bad[1], bad[2], bad[3], int(bad[4]), int(bad[5]), bad[6])
		}()
	}
}

func TestNoAllocations(t *testing.T) {
	m := DefaultMap()
	if n := testing.AllocsPerRun(100, func() { m.Locate(4.89, 52.37) }); n != 0 {
		t.Errorf("Locate allocates %v times", n)
	}
	buf := make([]ID, 0, 16)
	r := geo.Rect{MinLon: 4.8, MinLat: 52.3, MaxLon: 5.0, MaxLat: 52.4}
	if n := testing.AllocsPerRun(100, func() { buf = m.Touching(r, buf[:0]) }); n != 0 {
		t.Errorf("Touching allocates %v times", n)
	}
}

func TestDefaultMap(t *testing.T) {
	m := DefaultMap()
	if m != DefaultMap() {
		t.Error("DefaultMap is rebuilt on every call")
	}
	if m.Len() < 9 || m.Margin() != 200 || m.Version() != "world-1" || m.Name(m.CatchAll()) != "catchall" {
		t.Fatalf("default map: %v", m)
	}
	// Neighbours share their borders exactly, so the only borders with
	// the catch-all are the world's top and bottom edges.
	for _, s := range m.exposed {
		if s.ay != s.by || math.Abs(s.ay) != rmMaxLat {
			t.Errorf("border %+v between a shard and the catch-all", s)
		}
	}
	// The polygons cover the whole world: the catch-all owns nothing.
	rng := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 20000; i++ {
		lon, lat := -180+rng.Float64()*360, rmMinLat+rng.Float64()*(rmMaxLat-rmMinLat)
		if i < 4 {
			lon, lat = [4]float64{-180, 180, -180, 180}[i], [4]float64{rmMinLat, rmMaxLat, rmMaxLat, rmMinLat}[i]
		}
		if id := m.Locate(lon, lat); id == m.CatchAll() {
			t.Fatalf("Locate(%v, %v) is the catch-all", lon, lat)
		}
	}
}

// TestWorldMapMetros checks that the default map's borders stay away
// from big metro areas: each is owned by the shard listed in
// testdata/regionmap_metros.txt, at least 20 km from every other shard,
// and a 10 km search around it asks that shard alone.
func TestWorldMapMetros(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "regionmap_metros.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := DefaultMap()
	seen := make(map[string]bool)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fs := strings.Fields(text)
		if len(fs) != 4 {
			t.Fatalf("line %d: want shard name lon lat: %q", line, text)
		}
		lon, err1 := strconv.ParseFloat(fs[2], 64)
		lat, err2 := strconv.ParseFloat(fs[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: bad coordinates: %q", line, text)
		}
		want, city := fs[0], fs[1]
		seen[want] = true
		if got := m.Name(m.Locate(lon, lat)); got != want {
			t.Errorf("%s (%v, %v) is in %s, want %s", city, lon, lat, got, want)
			continue
		}
		for id := ID(0); int(id) < m.Len(); id++ {
			if m.Name(id) == want {
				continue
			}
			if d := m.Distance(id, lon, lat); d < 20000 {
				t.Errorf("%s is %.1f km from %s", city, d/1000, m.Name(id))
			}
		}
		dlat := 10.0 / 111
		dlon := dlat / math.Cos(lat*math.Pi/180)
		r := geo.Rect{MinLon: lon - dlon, MinLat: lat - dlat, MaxLon: lon + dlon, MaxLat: lat + dlat}
		if got := rmNames(m, m.Touching(r, nil)); !slices.Equal(got, []string{want}) {
			t.Errorf("a 10 km search around %s asks %q", city, got)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for id := ID(0); int(id) < m.Len(); id++ {
		if id != m.CatchAll() && !seen[m.Name(id)] {
			t.Errorf("no metro listed for shard %s", m.Name(id))
		}
	}
}
