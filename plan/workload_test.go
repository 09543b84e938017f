package plan

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestWorkloadRoundTrip(t *testing.T) {
	pings := []Ping{{T: 0, ID: "driver:1", Lon: 4.9, Lat: 52.37}, {T: 4.25, ID: `d,"2"`, Lon: -0.5, Lat: -12.125}}
	searches := []Search{{T: 1.5, Lon: 4.9, Lat: 52.37, RadiusM: 2000}}
	var pb, sb bytes.Buffer
	if err := WritePings(&pb, pings); err != nil {
		t.Fatal(err)
	}
	if err := WriteSearches(&sb, searches); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pb.String(), PingHeader+"\n") || !strings.HasPrefix(sb.String(), SearchHeader+"\n") {
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
