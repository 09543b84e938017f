package plan

import (
	"encoding/json"
	"fmt"
	"math"

	"geoshard/geo"
	"geoshard/shard"
)

// Refine splits one shard of a map in use into cfg.Shards pieces and
// leaves every other shard as it is, so only the split shard's members
// move. The pieces come from Propose's bisection of the workload that
// falls in that shard, over its bounding box, each cut out of the shard's
// own polygons: a piece is the shard's area inside one block, so the new
// borders are the cuts and the old borders stay. Pieces are named
// <shard>-1, <shard>-2, ...
func Refine(w *Workload, cur *shard.Map, name string, cfg ProposeConfig) (*shard.Map, []byte, error) {
	id, ok := cur.Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("refine: the map has no shard %q", name)
	}
	box, ok := cur.Bounds(id)
	if !ok {
		return nil, nil, fmt.Errorf("refine: %s is the catch-all, which has no area to split", name)
	}
	inside := &Workload{}
	for _, p := range w.Pings {
		if cur.Locate(p.Lon, p.Lat) == id {
			inside.Pings = append(inside.Pings, p)
		}
	}
	for _, s := range w.Searches {
		if cur.Locate(s.Lon, s.Lat) == id {
			inside.Searches = append(inside.Searches, s)
		}
	}
	if len(inside.Pings)+len(inside.Searches) == 0 {
		return nil, nil, fmt.Errorf("refine: no ping or search of the workload falls in %s", name)
	}
	cfg.Bounds, cfg.Margin = box, cur.Margin()
	g, leaves, err := proposeLeaves(inside, cfg)
	if err != nil {
		return nil, nil, err
	}
	var feats []any
	for other := 0; other < cur.Len(); other++ {
		if oid := shard.ID(other); oid != id && oid != cur.CatchAll() {
			feats = append(feats, multiPolygon(cur.Name(oid), cur.Areas(oid)))
		}
	}
	for n, l := range leaves {
		r := geo.Rect{MinLon: g.xs[l.i0], MaxLon: g.xs[l.i1], MinLat: g.ys[l.j0], MaxLat: g.ys[l.j1]}
		var polys [][][][2]float64
		for _, poly := range cur.Areas(id) {
			if clipped := clipPolygon(poly, r); clipped != nil {
				polys = append(polys, clipped)
			}
		}
		if len(polys) > 0 {
			feats = append(feats, multiPolygon(fmt.Sprintf("%s-%d", name, n+1), polys))
		}
	}
	data, err := json.MarshalIndent(map[string]any{
		"type": "FeatureCollection",
		"properties": map[string]any{"margin": cur.Margin(), "version": cur.Version() + "+split-" + name,
			"catchall": cur.Name(cur.CatchAll())},
		"features": feats,
	}, "", " ")
	if err != nil {
		return nil, nil, fmt.Errorf("refine: %w", err)
	}
	m, err := shard.LoadMap(data)
	if err != nil {
		return nil, nil, fmt.Errorf("refine: the refined map does not load: %w", err)
	}
	return m, data, nil
}

func multiPolygon(name string, polys [][][][2]float64) map[string]any {
	return map[string]any{"type": "Feature", "properties": map[string]string{"shard": name},
		"geometry": map[string]any{"type": "MultiPolygon", "coordinates": polys}}
}

// clipPolygon cuts a polygon (outer ring and holes) to a rectangle, ring
// by ring (Sutherland-Hodgman against the four sides); nil when nothing of
// the outer ring is left.
func clipPolygon(poly [][][2]float64, r geo.Rect) [][][2]float64 {
	var out [][][2]float64
	for i, ring := range poly {
		c := clipRing(ring, r)
		if len(c) < 4 || math.Abs(ringArea(c)) < 1e-12 {
			if i == 0 {
				return nil
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

func clipRing(ring [][2]float64, r geo.Rect) [][2]float64 {
	pts := ring
	if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
		pts = pts[:len(pts)-1]
	}
	sides := []struct {
		in    func(p [2]float64) bool
		cross func(a, b [2]float64) [2]float64
	}{
		{func(p [2]float64) bool { return p[0] >= r.MinLon }, func(a, b [2]float64) [2]float64 { return atLon(a, b, r.MinLon) }},
		{func(p [2]float64) bool { return p[0] <= r.MaxLon }, func(a, b [2]float64) [2]float64 { return atLon(a, b, r.MaxLon) }},
		{func(p [2]float64) bool { return p[1] >= r.MinLat }, func(a, b [2]float64) [2]float64 { return atLat(a, b, r.MinLat) }},
		{func(p [2]float64) bool { return p[1] <= r.MaxLat }, func(a, b [2]float64) [2]float64 { return atLat(a, b, r.MaxLat) }},
	}
	for _, s := range sides {
		var next [][2]float64
		for i, p := range pts {
			prev := pts[(i+len(pts)-1)%len(pts)]
			switch {
			case s.in(p) && !s.in(prev):
				next = append(next, s.cross(prev, p), p)
			case s.in(p):
				next = append(next, p)
			case s.in(prev):
				next = append(next, s.cross(prev, p))
			}
		}
		pts = next
		if len(pts) == 0 {
			return nil
		}
	}
	// Drop repeated points the cuts leave, then close the ring.
	var out [][2]float64
	for _, p := range pts {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	if len(out) > 1 && out[0] == out[len(out)-1] {
		out = out[:len(out)-1]
	}
	return append(out, out[0])
}

func atLon(a, b [2]float64, lon float64) [2]float64 {
	t := (lon - a[0]) / (b[0] - a[0])
	return [2]float64{lon, a[1] + t*(b[1]-a[1])}
}

func atLat(a, b [2]float64, lat float64) [2]float64 {
	t := (lat - a[1]) / (b[1] - a[1])
	return [2]float64{a[0] + t*(b[0]-a[0]), lat}
}
