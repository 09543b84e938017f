package plan

import "math"

// LabelPoint returns where a shard's name goes: inside its largest
// polygon, as far from that polygon's edges as a coarse search finds. A
// centroid or a bounding-box centre can fall outside a concave area (a
// continent's shard wrapped around an ocean), which put names on the
// wrong continent.
func LabelPoint(areas [][][][2]float64) ([2]float64, bool) {
	best, bestArea := -1, 0.0
	for i, poly := range areas {
		if len(poly) == 0 {
			continue
		}
		if a := math.Abs(ringArea(poly[0])); a > bestArea {
			best, bestArea = i, a
		}
	}
	if best < 0 {
		return [2]float64{}, false
	}
	poly := areas[best]
	x0, y0, x1, y1 := ringBounds(poly[0])
	at, score := [2]float64{(x0 + x1) / 2, (y0 + y1) / 2}, -1.0
	// Three rounds of a 16x16 grid, each zoomed around the best point.
	w, h := x1-x0, y1-y0
	cx, cy := at[0], at[1]
	for round := 0; round < 3; round++ {
		for i := 0; i <= 16; i++ {
			for j := 0; j <= 16; j++ {
				p := [2]float64{cx - w/2 + w*float64(i)/16, cy - h/2 + h*float64(j)/16}
				if d := insideDepth(poly, p); d > score {
					at, score = p, d
				}
			}
		}
		cx, cy, w, h = at[0], at[1], w/4, h/4
	}
	return at, score > 0
}

// insideDepth is the distance (in degrees, longitude scaled by the
// cosine of the latitude) from p to the nearest edge of poly when p is
// inside it, and -1 otherwise.
func insideDepth(poly [][][2]float64, p [2]float64) float64 {
	if !ringContains(poly[0], p) {
		return -1
	}
	for _, hole := range poly[1:] {
		if ringContains(hole, p) {
			return -1
		}
	}
	c := math.Cos(p[1] * math.Pi / 180)
	d := math.Inf(1)
	for _, ring := range poly {
		for k := 0; k+1 < len(ring); k++ {
			d = math.Min(d, segDist(p, ring[k], ring[k+1], c))
		}
	}
	return d
}

func segDist(p, a, b [2]float64, c float64) float64 {
	ax, ay := (a[0]-p[0])*c, a[1]-p[1]
	bx, by := (b[0]-p[0])*c, b[1]-p[1]
	dx, dy := bx-ax, by-ay
	t := 0.0
	if l2 := dx*dx + dy*dy; l2 > 0 {
		t = math.Max(0, math.Min(1, -(ax*dx+ay*dy)/l2))
	}
	return math.Hypot(ax+t*dx, ay+t*dy)
}

func ringContains(ring [][2]float64, p [2]float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// ringArea is the shoelace area in degrees², longitude scaled by the
// cosine of the ring's middle latitude: enough to tell polygons apart.
func ringArea(ring [][2]float64) float64 {
	_, y0, _, y1 := ringBounds(ring)
	s := 0.0
	for k := 0; k+1 < len(ring); k++ {
		s += ring[k][0]*ring[k+1][1] - ring[k+1][0]*ring[k][1]
	}
	return s / 2 * math.Cos((y0+y1)/2*math.Pi/180)
}

func ringBounds(ring [][2]float64) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range ring {
		x0, y0 = math.Min(x0, p[0]), math.Min(y0, p[1])
		x1, y1 = math.Max(x1, p[0]), math.Max(y1, p[1])
	}
	return
}
