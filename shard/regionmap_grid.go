package shard

import (
	"encoding/json"
	"fmt"
	"math"
)

// GridMap builds a map of cols*rows rectangular shards over the box, named
// "cell-<col>-<row>" (column 0 is the west, row 0 the south), plus the
// catch-all for the rest of the world; the version names the arguments.
// Neighbouring cells share their borders exactly. It is meant for tests
// and benchmarks that want many shards and many borders, and panics on
// arguments that cannot make a valid map (an empty or out-of-range box,
// no cells, too many cells, a negative or NaN margin).
func GridMap(minLon, minLat, maxLon, maxLat float64, cols, rows int, margin float64) *Map {
	if !(minLon < maxLon && minLat < maxLat) || minLon < rmMinLon || maxLon > rmMaxLon ||
		minLat < rmMinLat || maxLat > rmMaxLat || cols < 1 || rows < 1 ||
		cols*rows+1 > rmMaxShards || !(margin >= 0) || math.IsInf(margin, 0) {
		panic(fmt.Sprintf("shard.GridMap: invalid arguments (%v, %v, %v, %v, %d, %d, %v)",
			minLon, minLat, maxLon, maxLat, cols, rows, margin))
	}
	// Every cell computes a border from the same index, so neighbours get
	// bit-identical coordinates.
	xs := make([]float64, cols+1)
	for i := range xs {
		xs[i] = minLon + (maxLon-minLon)*float64(i)/float64(cols)
	}
	xs[cols] = maxLon
	ys := make([]float64, rows+1)
	for j := range ys {
		ys[j] = minLat + (maxLat-minLat)*float64(j)/float64(rows)
	}
	ys[rows] = maxLat
	feats := make([]rmFeature, 0, cols*rows)
	for j := 0; j < rows; j++ {
		for i := 0; i < cols; i++ {
			ring := [][2]float64{
				{xs[i], ys[j]}, {xs[i+1], ys[j]}, {xs[i+1], ys[j+1]}, {xs[i], ys[j+1]}, {xs[i], ys[j]},
			}
			feats = append(feats, rmFeature{
				name:    fmt.Sprintf("cell-%d-%d", i, j),
				polys:   [][][][2]float64{{ring}},
				single:  true,
				feature: len(feats),
			})
		}
	}
	version := fmt.Sprintf("grid-%dx%d-%g,%g,%g,%g-%g", cols, rows, minLon, minLat, maxLon, maxLat, margin)
	hdr := rmHeader{margin: margin, version: version, catchAll: rmDefaultCatchAll}
	m, err := rmBuild(hdr, feats)
	if err != nil {
		// Cells that rounding made degenerate (a box too small for the
		// cell count) are the caller's mistake, like any other argument.
		panic(fmt.Sprintf("shard.GridMap: %v", err))
	}
	return m
}

// GeoJSON writes the map as a GeoJSON FeatureCollection that LoadMap
// reads back to an equivalent map (same shards, IDs, areas, margin,
// version and catch-all name).
func (m *Map) GeoJSON() []byte {
	type geometry struct {
		Type        string `json:"type"`
		Coordinates any    `json:"coordinates"`
	}
	type feature struct {
		Type       string            `json:"type"`
		Properties map[string]string `json:"properties"`
		Geometry   geometry          `json:"geometry"`
	}
	type collection struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Features   []feature      `json:"features"`
	}
	var version any = m.version
	if m.verNum {
		version = json.Number(m.version)
	}
	fc := collection{
		Type: "FeatureCollection",
		Properties: map[string]any{
			"margin":   m.margin,
			"version":  version,
			"catchall": m.names[m.catchAll],
		},
	}
	for id := range m.names {
		if ID(id) == m.catchAll || len(m.byShard[id]) == 0 {
			continue // the catch-all, or an ID outside a Placed map's own
		}
		g := geometry{Type: "MultiPolygon", Coordinates: m.Areas(ID(id))}
		if m.single[id] {
			g = geometry{Type: "Polygon", Coordinates: m.Areas(ID(id))[0]}
		}
		fc.Features = append(fc.Features, feature{
			Type:       "Feature",
			Properties: map[string]string{"shard": m.names[id]},
			Geometry:   g,
		})
	}
	out, err := json.MarshalIndent(fc, "", " ")
	if err != nil {
		// Only finite numbers and strings go in; this cannot fail.
		panic(fmt.Sprintf("shard: encoding region map: %v", err))
	}
	return out
}
