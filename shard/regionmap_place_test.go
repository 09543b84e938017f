package shard

import (
	"math"
	"slices"
	"testing"

	"geoshard/geo"
)

// A placed map answers as the map it came from, its IDs shifted; the IDs
// outside its own own nothing.
func TestPlaced(t *testing.T) {
	m := GridMap(0, 40, 10, 50, 3, 3, 200)
	for _, tc := range []struct{ off, total int }{{0, 10}, {10, 20}, {5, 30}} {
		pm, err := m.Placed(tc.off, tc.total, func(id ID) string { return "old-" + m.Name(id%10) })
		if err != nil {
			t.Fatal(err)
		}
		if first, n := pm.Own(); first != tc.off || n != m.Len() || pm.Len() != tc.total {
			t.Fatalf("own %d+%d of %d", first, n, pm.Len())
		}
		off := ID(tc.off)
		for _, p := range [][2]float64{{1, 41}, {9.9, 49.9}, {5, 45}, {50, 0}} {
			if got, want := pm.Locate(p[0], p[1]), m.Locate(p[0], p[1])+off; got != want {
				t.Errorf("Locate%v = %d, want %d", p, got, want)
			}
		}
		if pm.CatchAll() != m.CatchAll()+off || pm.Name(pm.CatchAll()) != m.Name(m.CatchAll()) {
			t.Errorf("catch-all %d %q", pm.CatchAll(), pm.Name(pm.CatchAll()))
		}
		r := geo.Rect{MinLon: 3, MinLat: 43, MaxLon: 4, MaxLat: 44}
		var want []ID
		for _, id := range m.Touching(r, nil) {
			want = append(want, id+off)
		}
		if got := pm.Touching(r, nil); !slices.Equal(got, want) {
			t.Errorf("Touching %v, want %v", got, want)
		}
		if pm.Borders() != m.Borders() {
			t.Errorf("%d borders, want %d", pm.Borders(), m.Borders())
		}
		outside := ID((tc.off + m.Len()) % tc.total)
		if tc.off == 0 {
			outside = ID(m.Len())
		}
		if d := pm.Distance(outside, 5, 45); !math.IsInf(d, 1) {
			t.Errorf("distance to an outside ID %d: %v", outside, d)
		}
		if _, err := LoadMap(pm.GeoJSON()); err != nil {
			t.Errorf("GeoJSON of a placed map: %v", err)
		}
	}
	if _, err := m.Placed(65530, 65540, func(ID) string { return "x" }); err == nil {
		t.Error("a map placed past the ID space")
	}
}
