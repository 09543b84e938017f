package plan

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestWorkloadRoundTrip(t *testing.T) {
	pings := []Ping{{T: 0, ID: "driver:1", Lon: 4.9, Lat: 52.37}, {T: 4.25, ID: `d,"2"`, Lon: -0.5, Lat: -12.125}}
	searches := []Search{{T: 1.5, Lon: 4.9, Lat: 52.37, RadiusM: 2000, Count: 10},
		{T: 2, Lon: 4.9, Lat: 52.37, RadiusM: 500, Count: -1}, {T: 3, Lon: 5, Lat: 52, RadiusM: 500, Count: 3}}
	var pb, sb bytes.Buffer
	if err := WritePings(&pb, pings); err != nil {
		t.Fatal(err)
	}
	if err := WriteSearches(&sb, searches); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pb.String(), PingHeader+"\n") || !strings.HasPrefix(sb.String(), SearchCountHeader+"\n") {
		t.Fatalf("headers: %q / %q", pb.String(), sb.String())
	}
	gp, err := ReadPings(&pb)
	if err != nil || !reflect.DeepEqual(gp, pings) {
		t.Fatalf("pings: %v %v", gp, err)
	}
	gs, err := ReadSearches(&sb)
	if err != nil || !reflect.DeepEqual(gs, searches) {
		t.Fatalf("searches: %v %v", gs, err)
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, pings, searches, want string
	}{
		{"empty pings", "", "", "empty file"},
		{"wrong header", "t,id,lon,lat\n", "", "header"},
		{"short row", "time,id,lon,lat\n1,a,2\n", "", "line 2"},
		{"bad number", "time,id,lon,lat\n1,a,x,2\n", "", `lon "x"`},
		{"out of range", "time,id,lon,lat\n1,a,2,89\n", "", "outside"},
		{"nan time", "time,id,lon,lat\nNaN,a,2,3\n", "", "time"},
		{"empty id", "time,id,lon,lat\n1,,2,3\n", "", "empty id"},
		{"negative radius", "", "time,lon,lat,radius_m\n1,2,3,-5\n", "negative"},
		{"search header", "", "time,lon,lat,radius\n", "header"},
		{"bad count", "", "time,lon,lat,radius_m,count\n1,2,3,5,-1\n", "count"},
		{"fraction count", "", "time,lon,lat,radius_m,count\n1,2,3,5,1.5\n", "count"},
		{"count on a 4-field file", "", "time,lon,lat,radius_m\n1,2,3,5,7\n", "5 fields, want 4"},
		{"bad timestamp", "time,id,lon,lat\n2026-13-01T00:00:00Z,a,2,3\n", "", "RFC 3339"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.searches == "" {
				_, err = ReadPings(strings.NewReader(c.pings))
			} else {
				_, err = ReadSearches(strings.NewReader(c.searches))
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestSynthesizeShape(t *testing.T) {
	m := DefaultMetro()
	w := m.Synthesize(SynthConfig{Drivers: 20, Duration: 120, SearchesPerSec: 1, Seed: 7})
	if len(w.Pings) != 20*30 || len(w.Searches) != 120 {
		t.Fatalf("%d pings, %d searches", len(w.Pings), len(w.Searches))
	}
	b := m.Bounds()
	for i, p := range w.Pings {
		if i > 0 && p.T < w.Pings[i-1].T {
			t.Fatalf("pings out of order at %d", i)
		}
		// GPS noise may put a driver a little past the edge.
		if p.Lon < b.MinLon-0.001 || p.Lon > b.MaxLon+0.001 || p.Lat < b.MinLat-0.001 || p.Lat > b.MaxLat+0.001 {
			t.Fatalf("ping %v outside the metro %v", p, b)
		}
	}
	// Consecutive pings of one driver are at most a 4 s drive apart
	// (14 m/s) plus GPS noise.
	last := map[string]Ping{}
	for _, p := range w.Pings {
		if q, ok := last[p.ID]; ok {
			if d := distM(p.Lon, p.Lat, q.Lon, q.Lat); d > 4*14+60 {
				t.Fatalf("%s jumped %.0f m in %.1f s", p.ID, d, p.T-q.T)
			}
		}
		last[p.ID] = p
	}
	// Nobody drives on the water except on a bridge.
	for _, p := range w.Pings {
		x, y := metroXY(m, p.Lon, p.Lat)
		if m.RiverX0+30 < x && x < m.RiverX1-30 && !nearAny(m.Bridges, y, 30) {
			t.Fatalf("%s in the river at (%.0f, %.0f)", p.ID, x, y)
		}
	}
}

func nearAny(list []float64, v, tol float64) bool {
	for _, w := range list {
		if v > w-tol && v < w+tol {
			return true
		}
	}
	return false
}

// TestReadTimesAndCounts: ISO 8601 (RFC 3339) times read as Unix seconds,
// and the count column as each search's COUNT.
func TestReadTimesAndCounts(t *testing.T) {
	pings, err := ReadPings(strings.NewReader("time,id,lon,lat\n2026-12-01T15:00:00Z,a,2,3\n2026-12-01T16:00:00.5+01:00,b,2,3\n1796137200,c,2,3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1796137200, 1796137200.5, 1796137200}; pings[0].T != want[0] || pings[1].T != want[1] || pings[2].T != want[2] {
		t.Errorf("times %v %v %v, want %v", pings[0].T, pings[1].T, pings[2].T, want)
	}
	cases := []struct {
		file  string
		limit []int
	}{
		{"time,lon,lat,radius_m\n1,2,3,5\n", []int{10}},
		{"time,lon,lat,radius_m,count\n1,2,3,5,0\n1,2,3,5,\n1,2,3,5,25\n", []int{0, 0, 25}},
	}
	for _, c := range cases {
		s, err := ReadSearches(strings.NewReader(c.file))
		if err != nil || len(s) != len(c.limit) {
			t.Fatalf("%q: %v %v", c.file, s, err)
		}
		for i := range s {
			if s[i].Limit() != c.limit[i] {
				t.Errorf("%q row %d: COUNT %d, want %d", c.file, i, s[i].Limit(), c.limit[i])
			}
		}
	}
}
