package plan

import (
	"math"
	"slices"

	"geoshard/shard"
)

// Segment is a straight piece of border, {lon, lat} to {lon, lat}.
type Segment struct{ P, Q [2]float64 }

// BorderLine is where two shards' areas meet: the pieces of polygon edge
// they share. A border with the catch-all is the part of a shard's
// boundary that no other shard shares.
type BorderLine struct {
	A, B     shard.ID // A < B
	Segments []Segment
}

// maxBorderEdges bounds the pairwise edge comparison; larger maps get no
// border lines (their areas still draw).
const maxBorderEdges = 5000

type edge struct {
	id   shard.ID
	p, q [2]float64
}

// BorderLines finds the borders of a map by matching collinear,
// overlapping polygon edges of different shards. It is meant for maps of
// up to a few thousand vertices, as operators write them; for larger maps
// it returns nil.
func BorderLines(m *shard.Map) []BorderLine {
	var edges []edge
	for id := 0; id < m.Len(); id++ {
		for _, poly := range m.Areas(shard.ID(id)) {
			for _, ring := range poly {
				for i := 0; i+1 < len(ring); i++ {
					if ring[i] != ring[i+1] {
						edges = append(edges, edge{shard.ID(id), ring[i], ring[i+1]})
					}
				}
			}
		}
		if len(edges) > maxBorderEdges {
			return nil
		}
	}
	type pair struct{ a, b shard.ID }
	shared := map[pair][]Segment{}
	for i := range edges {
		e := &edges[i]
		// Parameter intervals of e that another shard shares.
		var used [][2]float64
		for j := range edges {
			o := &edges[j]
			if o.id == e.id {
				continue
			}
			t0, t1, ok := overlap(e.p, e.q, o.p, o.q)
			if !ok {
				continue
			}
			used = append(used, [2]float64{t0, t1})
			if e.id < o.id {
				k := pair{e.id, o.id}
				shared[k] = append(shared[k], Segment{lerp(e.p, e.q, t0), lerp(e.p, e.q, t1)})
			}
		}
		// The rest of the edge faces the catch-all.
		for _, iv := range complement(used) {
			a, b := e.id, m.CatchAll()
			if a > b {
				a, b = b, a
			}
			k := pair{a, b}
			shared[k] = append(shared[k], Segment{lerp(e.p, e.q, iv[0]), lerp(e.p, e.q, iv[1])})
		}
	}
	out := make([]BorderLine, 0, len(shared))
	for k, segs := range shared {
		out = append(out, BorderLine{A: k.a, B: k.b, Segments: segs})
	}
	slices.SortFunc(out, func(x, y BorderLine) int {
		if x.A != y.A {
			return int(x.A) - int(y.A)
		}
		return int(x.B) - int(y.B)
	})
	return out
}

// overlap returns the parameter interval of p->q that o0->o1 covers when
// the two are collinear and overlap by more than a point.
func overlap(p, q, o0, o1 [2]float64) (t0, t1 float64, ok bool) {
	dx, dy := q[0]-p[0], q[1]-p[1]
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return 0, 0, false
	}
	if math.Max(o0[0], o1[0]) < math.Min(p[0], q[0]) || math.Min(o0[0], o1[0]) > math.Max(p[0], q[0]) ||
		math.Max(o0[1], o1[1]) < math.Min(p[1], q[1]) || math.Min(o0[1], o1[1]) > math.Max(p[1], q[1]) {
		return 0, 0, false
	}
	// Distance of o's ends from the line, relative to nothing finer than
	// coordinates written with ~9 decimals.
	const eps = 1e-9
	l := math.Sqrt(l2)
	for _, o := range [2][2]float64{o0, o1} {
		if math.Abs(dx*(o[1]-p[1])-dy*(o[0]-p[0]))/l > eps {
			return 0, 0, false
		}
	}
	a := (dx*(o0[0]-p[0]) + dy*(o0[1]-p[1])) / l2
	b := (dx*(o1[0]-p[0]) + dy*(o1[1]-p[1])) / l2
	t0, t1 = math.Max(0, math.Min(a, b)), math.Min(1, math.Max(a, b))
	if (t1-t0)*l <= eps {
		return 0, 0, false
	}
	return t0, t1, true
}

// complement returns the parts of [0, 1] that no interval covers.
func complement(iv [][2]float64) [][2]float64 {
	slices.SortFunc(iv, func(a, b [2]float64) int { return cmpF(a[0], b[0]) })
	var out [][2]float64
	at := 0.0
	for _, v := range iv {
		if v[0] > at+1e-9 {
			out = append(out, [2]float64{at, v[0]})
		}
		at = math.Max(at, v[1])
	}
	if at < 1-1e-9 {
		out = append(out, [2]float64{at, 1})
	}
	return out
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func lerp(p, q [2]float64, t float64) [2]float64 {
	return [2]float64{p[0] + (q[0]-p[0])*t, p[1] + (q[1]-p[1])*t}
}
