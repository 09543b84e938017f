package shard

import (
	_ "embed"
	"fmt"
	"math"
	"os"
	"sync"

	"geoshard/geo"
)

// ID is a shard's index in a region map, 0..Len()-1. The catch-all shard
// is one of them (the last).
type ID uint16

// The coordinate range a map may use: Redis's GEO limits.
const (
	rmMinLon = -180.0
	rmMaxLon = 180.0
	rmMinLat = -85.05112878
	rmMaxLat = 85.05112878
)

// rmMaxShards bounds the shard count, catch-all included, well inside ID.
const rmMaxShards = 65000

// rmDefaultMargin is the hysteresis margin in metres when a map names none.
const rmDefaultMargin = 200.0

// rmDefaultCatchAll names the catch-all shard when a map names none.
const rmDefaultCatchAll = "catchall"

// Map is a region map: the shards, the area each owns, the hysteresis
// margin and a version. The catch-all shard owns every point no polygon
// holds. A Map is immutable once built and safe for concurrent use.
type Map struct {
	names     []string
	byName    map[string]ID
	catchAll  ID
	margin    float64
	version   string
	verNum    bool // the version was a JSON number (kept for GeoJSON)
	polys     []rmPoly
	byShard   [][]int32 // polygon indices of each shard
	single    []bool    // the shard's feature was a Polygon, not a MultiPolygon
	index     rmTree    // over polygon bounding boxes
	exposed   []rmSeg   // the boundary of the catch-all's area
	expIndex  rmTree    // over exposed segment bounding boxes
	adjOnce   sync.Once
	adj       rmAdj // the borders, see adjacency
	reachOnce sync.Once
	reach     []geo.Rect // see Reach; MinLat > MaxLat: unbounded
	off, n    int        // see Placed: the map's own shards are [off, off+n); n 0: all
}

//go:embed world.geojson
var rmWorldGeoJSON []byte

var rmDefaultMap = sync.OnceValue(func() *Map {
	m, err := LoadMap(rmWorldGeoJSON)
	if err != nil {
		// The embedded map is part of the program; its tests load it.
		panic(fmt.Sprintf("shard: embedded world map: %v", err))
	}
	return m
})

// DefaultMap returns the embedded world map: a handful of continental
// shards with borders over oceans and empty land. It is built once and
// shared.
func DefaultMap() *Map { return rmDefaultMap() }

// LoadMapFile reads a GeoJSON region map from a file.
func LoadMapFile(path string) (*Map, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("region map: %w", err)
	}
	m, err := LoadMap(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Len returns the number of shards, the catch-all included.
func (m *Map) Len() int { return len(m.names) }

// Name returns a shard's name, "" for an ID out of range.
func (m *Map) Name(id ID) string {
	if int(id) >= len(m.names) {
		return ""
	}
	return m.names[id]
}

// Lookup returns the ID of the shard with that name.
func (m *Map) Lookup(name string) (ID, bool) {
	id, ok := m.byName[name]
	return id, ok
}

// CatchAll returns the shard that owns what no polygon holds.
func (m *Map) CatchAll() ID { return m.catchAll }

// Margin returns the hysteresis margin in metres.
func (m *Map) Margin() float64 { return m.margin }

// Version returns the map's version ("" never: a map without one gets a
// hash of its content).
func (m *Map) Version() string { return m.version }

// Areas returns a copy of the polygons of a shard as
// [polygon][ring][point]{lon, lat}; rings are closed, outer rings
// counter-clockwise and holes clockwise. The catch-all has none.
func (m *Map) Areas(id ID) [][][][2]float64 {
	if int(id) >= len(m.byShard) {
		return nil
	}
	var out [][][][2]float64
	for _, pi := range m.byShard[id] {
		p := &m.polys[pi]
		rings := make([][][2]float64, len(p.rings))
		for i, r := range p.rings {
			rings[i] = append([][2]float64(nil), r...)
		}
		out = append(out, rings)
	}
	return out
}

// Bounds returns the bounding box of a shard's polygons; ok is false for
// a shard without polygons (the catch-all).
func (m *Map) Bounds(id ID) (r geo.Rect, ok bool) {
	if int(id) >= len(m.byShard) {
		return r, false
	}
	for i, pi := range m.byShard[id] {
		b := m.polys[pi].bbox
		if i == 0 {
			r = b
			continue
		}
		r = rmUnion(r, b)
	}
	return r, len(m.byShard[id]) > 0
}

// String describes the map briefly, for logs.
func (m *Map) String() string {
	return fmt.Sprintf("region map %q: %d shards, margin %gm", m.version, len(m.names), m.margin)
}

func rmUnion(a, b geo.Rect) geo.Rect {
	return geo.Rect{
		MinLon: math.Min(a.MinLon, b.MinLon), MinLat: math.Min(a.MinLat, b.MinLat),
		MaxLon: math.Max(a.MaxLon, b.MaxLon), MaxLat: math.Max(a.MaxLat, b.MaxLat),
	}
}
