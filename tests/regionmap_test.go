package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// An adversarial region map: hundreds of small shards laid over exactly the
// places where the random data lives, so nearly every search crosses
// borders, members sit on shared edges and corners, and a 500 m margin is
// wider than many shards. Everything else falls to the catch-all shard.

const adversarialMargin = 500 // metres

// mapStyle says how an area's grid cells become shards.
type mapStyle int

const (
	cellPerShard     mapStyle = iota // each rectangle its own Polygon shard
	trianglePerShard                 // each rectangle split on its diagonal into two shards
	interleaved                      // 7 MultiPolygon shards per area, cells dealt out so no two parts touch
)

// gridSpec grids one box of an area.
type gridSpec struct {
	name                           string
	minLon, minLat, maxLon, maxLat float64
	nx, ny                         int
	style                          mapStyle
}

// adversarialGrids returns the grids for the data areas, each with scale
// times the cells across and along. Boxes follow each area's extent; Fiji
// is split at the antimeridian; the polar bands reach the Web-Mercator
// limit exactly.
func adversarialGrids(areas []area, scale int) []gridSpec {
	style := map[string]struct {
		nx, ny int
		s      mapStyle
	}{
		"amsterdam": {6, 6, trianglePerShard},
		"sicily":    {10, 8, cellPerShard},
		"nyc":       {10, 10, interleaved},
		"sydney":    {6, 6, cellPerShard},
		"fiji":      {4, 8, cellPerShard},
		"svalbard":  {8, 6, cellPerShard},
		"north":     {24, 3, cellPerShard},
		"south":     {24, 3, interleaved},
		"origin":    {6, 6, cellPerShard},
	}
	var grids []gridSpec
	for _, a := range areas {
		st, ok := style[a.name]
		if !ok {
			st.nx, st.ny, st.s = 4, 4, cellPerShard
		}
		st.nx, st.ny = st.nx*scale, st.ny*scale
		loLat, hiLat := a.lat-a.halfLat, a.lat+a.halfLat
		if a.name == "north" {
			hiLat = maxLat
		}
		if a.name == "south" {
			loLat = -maxLat
		}
		loLon, hiLon := a.lon-a.halfLon, a.lon+a.halfLon
		switch {
		case hiLon > 180: // straddles the antimeridian: one grid each side
			grids = append(grids,
				gridSpec{a.name + "-e", loLon, loLat, 180, hiLat, st.nx, st.ny, st.s},
				gridSpec{a.name + "-w", -180, loLat, hiLon - 360, hiLat, st.nx, st.ny, st.s})
		default:
			grids = append(grids, gridSpec{a.name, max(loLon, -180), loLat, min(hiLon, 180), hiLat, st.nx, st.ny, st.s})
		}
	}
	return grids
}

type lonLat [2]float64
type ring []lonLat

// mapFeature is one shard: one or more polygons (outer rings only).
type mapFeature struct {
	shard string
	polys []ring
}

// edges returns n+1 split points of [lo, hi] with exact end points, so
// neighbouring cells share bit-identical edges.
func edges(lo, hi float64, n int) []float64 {
	e := make([]float64, n+1)
	for i := range e {
		e[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	e[0], e[n] = lo, hi
	return e
}

func rectRing(x0, y0, x1, y1 float64) ring { // counter-clockwise, closed
	return ring{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
}

func adversarialFeatures(areas []area, scale int) []mapFeature {
	var feats []mapFeature
	for _, g := range adversarialGrids(areas, scale) {
		xs, ys := edges(g.minLon, g.maxLon, g.nx), edges(g.minLat, g.maxLat, g.ny)
		shared := map[int]*mapFeature{}
		var order []int
		for j := 0; j < g.ny; j++ {
			for i := 0; i < g.nx; i++ {
				x0, x1, y0, y1 := xs[i], xs[i+1], ys[j], ys[j+1]
				name := fmt.Sprintf("%s-%d-%d", g.name, i, j)
				switch g.style {
				case cellPerShard:
					feats = append(feats, mapFeature{name, []ring{rectRing(x0, y0, x1, y1)}})
				case trianglePerShard:
					feats = append(feats,
						mapFeature{name + "-se", []ring{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}}}},
						mapFeature{name + "-nw", []ring{{{x0, y0}, {x1, y1}, {x0, y1}, {x0, y0}}}})
				case interleaved:
					// Neighbours differ by 1, 2, 3 or 4 mod 7: no two parts of
					// one shard touch, not even at a corner.
					k := (i + 3*j) % 7
					f, ok := shared[k]
					if !ok {
						f = &mapFeature{shard: fmt.Sprintf("%s-multi-%d", g.name, k)}
						shared[k] = f
						order = append(order, k)
					}
					f.polys = append(f.polys, rectRing(x0, y0, x1, y1))
				}
			}
		}
		for _, k := range order {
			feats = append(feats, *shared[k])
		}
	}
	return feats
}

// GeoJSON shapes, as the region-map format defines them.
type gjCollection struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	Features   []gjFeature    `json:"features"`
}

type gjFeature struct {
	Type       string            `json:"type"`
	Properties map[string]string `json:"properties"`
	Geometry   gjGeometry        `json:"geometry"`
}

type gjGeometry struct {
	Type        string `json:"type"`
	Coordinates any    `json:"coordinates"`
}

func adversarialGeoJSON(areas []area, scale int) gjCollection {
	fc := gjCollection{
		Type:       "FeatureCollection",
		Properties: map[string]any{"margin": adversarialMargin},
	}
	for _, f := range adversarialFeatures(areas, scale) {
		geom := gjGeometry{Type: "Polygon", Coordinates: []ring{f.polys[0]}}
		if len(f.polys) > 1 {
			mp := make([][]ring, len(f.polys))
			for i, p := range f.polys {
				mp[i] = []ring{p}
			}
			geom = gjGeometry{Type: "MultiPolygon", Coordinates: mp}
		}
		fc.Features = append(fc.Features, gjFeature{
			Type:       "Feature",
			Properties: map[string]string{"shard": f.shard},
			Geometry:   geom,
		})
	}
	return fc
}

// writeAdversarialMap writes the map for areas to path.
func writeAdversarialMap(path string, areas []area) error {
	return writeScaledMap(path, areas, 1)
}

// writeFineMap writes the adversarial map with every grid twice as fine:
// about 1,600 areas of a few kilometres over several metros, thin strips
// at the antimeridian and near the poles (issue 11's 1,541-area map).
func writeFineMap(path string, areas []area) error {
	return writeScaledMap(path, areas, 2)
}

func writeScaledMap(path string, areas []area, scale int) error {
	b, err := json.MarshalIndent(adversarialGeoJSON(areas, scale), "", " ")
	if err != nil {
		return fmt.Errorf("encoding adversarial map: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing adversarial map: %w", err)
	}
	return nil
}

// TestWriteFineMap writes the fine map to $GEOSHARD_FINE_MAP, for the load
// measurements of docs/BENCHMARKS.md; without it, it does nothing.
func TestWriteFineMap(t *testing.T) {
	path := os.Getenv("GEOSHARD_FINE_MAP")
	if path == "" {
		t.Skip("GEOSHARD_FINE_MAP names no file")
	}
	if err := writeFineMap(path, dataAreas); err != nil {
		t.Fatal(err)
	}
}
