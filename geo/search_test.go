package geo

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func modelOf(points ...any) *zmodel {
	m := &zmodel{}
	for i := 0; i < len(points); i += 3 {
		m.add(points[i+2].(string), Encode(points[i].(float64), points[i+1].(float64)))
	}
	return m
}

var (
	sicily = modelOf(13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania",
		12.758489, 38.788135, "edge1", 17.241510, 38.788135, "edge2")
	nyc = modelOf(-73.9454966, 40.747533, "lic market", -73.9733487, 40.7648057, "central park n/q/r",
		-73.9903085, 40.7362513, "union square", -74.0131604, 40.7126674, "wtc one",
		-73.7858139, 40.6428986, "jfk", -73.9375699, 40.7498929, "q4", -73.9564142, 40.7480973, "4545")
	antimeridian = modelOf(179.5, 36.0, "p1", -179.5, 36.0, "p2", 180.0, 36.0, "p180", -180.0, 36.0, "pm180")
	pole         = modelOf(0.0, 85.0, "a", 179.9999, 85.0, "b", 0.0, 85.05112877, "top2", 0.0, 85.05112878, "top")
	world        = modelOf(0.0, 0.0, "o", 179.0, 0.0, "far", 0.0, 80.0, "n", 0.0, -80.0, "s", 100.0, 50.0, "x", -100.0, -50.0, "y")
	worldEdges   = modelOf(0.0, 0.0, "o", 179.0, 0.0, "far", 0.0, 80.0, "n", 0.0, -80.0, "s", 100.0, 50.0, "x",
		-100.0, -50.0, "y", 180.0, 0.0, "edge", 0.0, 85.05112878, "top")
	polemiss = modelOf(-114.226074, 84.177962, "far", -40.045207, 79.9, "near")
	tiny     = modelOf(0.0, 0.0, "a", 0.000001, 0.0, "b", 0.00001, 0.0, "c", 0.0001, 0.0, "d")
	sfPoints = modelOf(-122.407107, 37.794300, "1", -122.227336, 37.794300, "2")
	ties     = modelOf(1.0, 1.0, "m0", 1.0, 1.0, "m1", 1.0, 1.0, "m2", 1.0, 1.0, "m3", 1.0, 1.0, "m4",
		1.0, 1.0, "m5", 1.0, 1.0, "m6", 1.0, 1.0, "m7", 1.0, 1.0, "m8", 1.0, 1.0, "m9")
)

func fromMember(m *zmodel, member string) (float64, float64) {
	s, ok := m.score(member)
	if !ok {
		panic("no member " + member)
	}
	return Decode(s)
}

func render(hits []hit, unit float64, withDist bool) string {
	var parts []string
	for _, h := range hits {
		if withDist {
			parts = append(parts, h.member+" "+string(AppendDist(nil, h.dist/unit)))
		} else {
			parts = append(parts, h.member)
		}
	}
	return strings.Join(parts, ", ")
}

// TestSearchSpecExamples replays every search of GEO-SPEC.md §8 and §10.
func TestSearchSpecExamples(t *testing.T) {
	wtcLon, wtcLat := fromMember(nyc, "wtc one")
	palLon, palLat := fromMember(sicily, "Palermo")
	tinyALon, tinyALat := fromMember(tiny, "a")
	radius := func(r, unit float64) Shape { return Shape{Radius: r, Unit: unit} }
	box := func(w, h, unit float64) Shape { return Shape{Box: true, Width: w, Height: h, Unit: unit} }
	tests := []struct {
		name     string
		m        *zmodel
		lon, lat float64
		shape    Shape
		count    int
		any      bool
		order    int
		withDist bool
		want     string
	}{
		{"sicily radius unsorted", modelOf(13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"),
			15, 37, radius(200, UnitKM), 0, false, sortNone, true, "Palermo 190.4424, Catania 56.4413"},
		{"bymember Palermo", sicily, palLon, palLat, radius(200, UnitKM), 0, false, sortNone, true,
			"Palermo 0.0000, edge1 91.4007, Catania 166.2742"},
		{"radius asc", sicily, 15, 37, radius(200, UnitKM), 0, false, sortAsc, false, "Catania, Palermo"},
		{"box unsorted", sicily, 15, 37, box(400, 400, UnitKM), 0, false, sortNone, false, "Palermo, edge1, Catania, edge2"},
		{"box asc", sicily, 15, 37, box(400, 400, UnitKM), 0, false, sortAsc, true,
			"Catania 56.4413, Palermo 190.4424, edge2 279.7403, edge1 279.7405"},
		{"nyc bymember", nyc, wtcLon, wtcLat, radius(7, UnitKM), 0, false, sortNone, true,
			"wtc one 0.0000, union square 3.2544, central park n/q/r 6.7000, 4545 6.1975, lic market 6.8969"},
		{"nyc count 2", nyc, -73.9798091, 40.7598464, radius(10, UnitKM), 2, false, sortNone, true,
			"central park n/q/r 0.7750, 4545 2.3651"},
		{"nyc count 2 desc", nyc, -73.9798091, 40.7598464, radius(10, UnitKM), 2, false, sortDesc, false, "wtc one, q4"},
		{"nyc count 3 any", nyc, -73.9798091, 40.7598464, radius(10, UnitKM), 3, true, sortNone, false,
			"wtc one, union square, central park n/q/r"},
		{"nyc count 3 any asc", nyc, -73.9798091, 40.7598464, radius(10, UnitKM), 3, true, sortAsc, false,
			"central park n/q/r, union square, wtc one"},
		{"antimeridian box", antimeridian, 179, 37, box(400, 400, UnitKM), 0, false, sortAsc, true,
			"p1 119.8737, pm180 142.7056, p2 174.2313"},
		{"antimeridian from 180", antimeridian, 180, 36, radius(100, UnitKM), 0, false, sortNone, true,
			"p180 0.0003, p1 44.9918"},
		{"antimeridian from -180", antimeridian, -180, 36, radius(100, UnitKM), 0, false, sortNone, true,
			"pm180 0.0002, p2 44.9918, p1 44.9918"},
		{"pole", pole, 0, 85, radius(1200, UnitKM), 0, false, sortAsc, true, "a 0.0000, top2 5.6867, b 1112.2630"},
		{"world 50000", world, 0, 0, radius(50000, UnitKM), 0, false, sortAsc, true,
			"o 0.0003, n 8898.1041, s 8898.1041, x 10723.1772, y 10723.1772, far 19909.5077"},
		{"world 19000", world, 0, 0, radius(19000, UnitKM), 0, false, sortAsc, false, "o, n, s, x, y"},
		{"world box", world, 0, 0, box(40000, 20000, UnitKM), 0, false, sortAsc, false, "o, n, s, x, y, far"},
		{"world big box", world, 0, 0, box(100000, 100000, UnitKM), 0, false, sortAsc, false, "o, n, s, x, y, far"},
		{"world radius inf", worldEdges, 0, 0, radius(math.Inf(1), UnitKM), 0, false, sortAsc, false, "o, n, s, x, y, far"},
		{"world radius inf from 180", worldEdges, 180, 0, radius(math.Inf(1), UnitKM), 0, false, sortAsc, false,
			"edge, far, x, s, n, o"},
		{"pole miss", polemiss, -40.045207, 79.873647, radius(1150, UnitKM), 0, false, sortNone, true, "near 2.9310"},
		{"pole found", polemiss, -40.045207, 79.873647, radius(1300, UnitKM), 0, false, sortAsc, true,
			"near 2.9310, far 1134.1209"},
		{"tiny member r0", tiny, tinyALon, tinyALat, radius(0, UnitM), 0, false, sortNone, false, "a, b"},
		{"tiny lonlat r0", tiny, 0, 0, radius(0, UnitM), 0, false, sortNone, false, ""},
		{"tiny 20m", tiny, 0, 0, radius(20, UnitM), 0, false, sortAsc, true, "a 0.3300, b 0.3300, c 0.9060, d 11.0392"},
		{"small distance", sfPoints, -122.407107, 37.794300, radius(30, UnitMI), 0, false, sortAsc, true,
			"1 0.0001, 2 9.8182"},
		{"ties asc", ties, 1, 1, radius(1, UnitKM), 0, false, sortAsc, false, "m0, m1, m2, m3, m4, m5, m6, m7, m8, m9"},
		{"ties desc", ties, 1, 1, radius(1, UnitKM), 0, false, sortDesc, false, "m0, m1, m2, m3, m4, m5, m6, m7, m8, m9"},
		{"ties count 3", ties, 1, 1, radius(1, UnitKM), 3, false, sortNone, false, "m9, m1, m2"},
		{"ties count 3 desc", ties, 1, 1, radius(1, UnitKM), 3, false, sortDesc, false, "m9, m1, m2"},
		{"ties count 9", ties, 1, 1, radius(1, UnitKM), 9, false, sortAsc, false, "m9, m1, m2, m3, m4, m5, m6, m7, m8"},
		{"ties count 10", ties, 1, 1, radius(1, UnitKM), 10, false, sortAsc, false, "m0, m1, m2, m3, m4, m5, m6, m7, m8, m9"},
	}
	for _, tc := range tests {
		s := NewSearch(tc.lon, tc.lat, tc.shape)
		got := render(tc.m.query(s, tc.count, tc.any, tc.order), tc.shape.Unit, tc.withDist)
		if got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}

func TestStoreDistScores(t *testing.T) {
	s := NewSearch(15, 37, Shape{Radius: 200, Unit: UnitKM})
	hits := modelOf(13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania").query(s, 0, false, sortAsc)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s %s", h.member, AppendScore(nil, h.dist/UnitKM)))
	}
	if want := "Catania 56.441257870158204, Palermo 190.44242984775784"; strings.Join(got, ", ") != want {
		if !ExactLibm {
			t.Skipf("without libm the last bit may differ: got %s, want %s", strings.Join(got, ", "), want)
		}
		t.Errorf("got %s, want %s", strings.Join(got, ", "), want)
	}
}

func TestGeodistSpec(t *testing.T) {
	tests := []struct {
		m    *zmodel
		a, b string
		unit float64
		want string
	}{
		{sicily, "Palermo", "Catania", UnitM, "166274.1516"},
		{sicily, "Palermo", "Catania", UnitKM, "166.2742"},
		{sicily, "Palermo", "Catania", UnitMI, "103.3182"},
		{sicily, "Palermo", "Catania", UnitFT, "545518.8700"},
		{sicily, "Palermo", "Palermo", UnitM, "0.0000"},
		{antimeridian, "p1", "p2", UnitKM, "89.9833"},
		{antimeridian, "p180", "pm180", UnitKM, "0.0004"},
		{tiny, "a", "b", UnitM, "0.0000"},
		{tiny, "a", "c", UnitM, "0.5967"},
		{tiny, "a", "d", UnitM, "10.7400"},
		{tiny, "a", "d", UnitKM, "0.0107"},
	}
	for _, tc := range tests {
		s1, _ := tc.m.score(tc.a)
		s2, _ := tc.m.score(tc.b)
		lon1, lat1 := Decode(s1)
		lon2, lat2 := Decode(s2)
		if got := string(AppendDist(nil, Distance(lon1, lat1, lon2, lat2)/tc.unit)); got != tc.want {
			t.Errorf("GEODIST %s %s /%v = %s, want %s", tc.a, tc.b, tc.unit, got, tc.want)
		}
	}
}

func TestEstimateSteps(t *testing.T) {
	tests := []struct {
		m, lat float64
		want   uint
	}{
		{200000, 37, 6}, {0, 0, 26}, {1, 0, 24}, {1e9, 0, 1}, {5000, 0, 11}, {5000, 70, 10}, {5000, 81, 9},
		{5000, -81, 9}, {5000, -67, 10}, {5000, 66, 11}, {math.Inf(1), 0, 1},
	}
	for _, tc := range tests {
		if got := estimateSteps(tc.m, tc.lat); got != tc.want {
			t.Errorf("estimateSteps(%v,%v) = %d, want %d", tc.m, tc.lat, got, tc.want)
		}
	}
}

func TestNeighboursWrap(t *testing.T) {
	// Step 2: lon index 3 (last column) moves east to column 0.
	bits := interleave(1, 3)
	if la, lo := deinterleave(moveX(bits, 2, 1)); la != 1 || lo != 0 {
		t.Errorf("east of last column = %d,%d", la, lo)
	}
	if la, lo := deinterleave(moveX(bits, 2, -1)); la != 1 || lo != 2 {
		t.Errorf("west = %d,%d", la, lo)
	}
	if la, lo := deinterleave(moveY(interleave(3, 0), 2, 1)); la != 0 || lo != 0 {
		t.Errorf("north of top row = %d,%d", la, lo)
	}
	if la, lo := deinterleave(moveY(interleave(0, 2), 2, -1)); la != 3 || lo != 2 {
		t.Errorf("south of bottom row = %d,%d", la, lo)
	}
}
