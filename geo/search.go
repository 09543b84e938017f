package geo

import "math"

// Shape is the area of a GEOSEARCH/GEORADIUS query, in the request's unit.
type Shape struct {
	Box           bool
	Radius        float64 // circle radius, in the request's unit
	Width, Height float64 // box full edge lengths, in the request's unit
	Unit          float64 // factor to metres (ParseUnit); 1 for a polygon
	// Polygon, when set, makes this a BYPOLYGON search: the centre is the
	// polygon's Centroid and the other fields are unused.
	Polygon *Polygon
}

// Cell is the zset score range [Min, Max) of one scanned geohash cell.
type Cell struct{ Min, Max float64 }

// Search is Redis' plan for one radius or box query: the cells it scans,
// in order, and the inclusion test it applies to each member found there.
// It is not modified after NewSearch, so it may be shared by goroutines.
//
// To answer like Redis: for each cell in order, walk the members with
// Min <= score < Max in (score, member) order, Decode each score, keep it
// if Match accepts it (stopping once COUNT n ANY has n hits, checked after
// every member and before every cell); then, with ASC/DESC or with COUNT
// without ANY (ASC implied), Sort all hits if COUNT is absent or not
// smaller than the hit count, else SortTop the first COUNT.
type Search struct {
	Lon, Lat float64 // centre: raw input coordinates, or the decoded FROMMEMBER position
	Shape    Shape
	// Cells are the score ranges Redis scans, in scan order (centre, N, S,
	// E, W, NE, NW, SE, SW) without dropped neighbours and without a cell
	// equal to the one scanned just before it (unless that was the centre).
	// Members are visited per cell in (score, member) order.
	Cells []Cell
	// NeedDist says the caller reads each hit's distance (to sort, or to
	// reply or store it). Without it, members a search contains for sure
	// need no distance computed at all.
	NeedDist bool

	near            Near
	radiusM         float64 // r*f
	widthM, heightM float64 // w*f, h*f
	step            uint
	cells           [9]Cell
}

// box is a lon/lat bounding box as geohashBoundingBox computes it.
type box struct{ minLon, minLat, maxLon, maxLat float64 }

// boundingBoxGo is geohashBoundingBox with Go's math.Cos.
func boundingBoxGo(lon, lat, height, width float64) box {
	latDelta := (height / EarthRadius) / degToRad
	top := (width / EarthRadius / math.Cos(float64((lat+latDelta)*degToRad))) / degToRad
	bottom := (width / EarthRadius / math.Cos(float64((lat-latDelta)*degToRad))) / degToRad
	d := top
	if lat < 0 {
		d = bottom
	}
	return box{lon - d, lat - latDelta, lon + d, lat + latDelta}
}

// mercatorMax is MERCATOR_MAX of geohash_helper.c.
const mercatorMax = 20037726.37

// estimateSteps is geohashEstimateStepsByRadius.
func estimateSteps(rangeMeters, lat float64) uint {
	if rangeMeters == 0 {
		return Step
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	if step < 1 {
		step = 1
	}
	if step > Step {
		step = Step
	}
	return uint(step)
}

// The neighbour moves of geohash.c: one axis' bits change (with carry
// through that axis only, wrapping modulo 2^step), the other axis' bits
// are kept unmasked. Longitude bits are the odd positions, latitude the
// even ones.
func moveX(bits uint64, step uint, d int) uint64 { return move(bits, step, d, 0xaaaaaaaaaaaaaaaa) }

func moveY(bits uint64, step uint, d int) uint64 { return move(bits, step, d, 0x5555555555555555) }

func move(bits uint64, step uint, d int, axis uint64) uint64 {
	a, other := bits&axis, bits&^axis
	fill := ^axis >> (64 - step*2) // the other axis' positions below 2*step
	if d > 0 {
		a += fill + 1
	} else {
		a = (a | fill) - (fill + 1)
	}
	return a&(axis>>(64-step*2)) | other
}

// Neighbour order of membersOfAllNeighbors after the centre.
const (
	nbNorth = iota
	nbSouth
	nbEast
	nbWest
	nbNorthEast
	nbNorthWest
	nbSouthEast
	nbSouthWest
)

func neighbours(bits uint64, step uint) [8]uint64 {
	return [8]uint64{
		nbNorth:     moveY(bits, step, 1),
		nbSouth:     moveY(bits, step, -1),
		nbEast:      moveX(bits, step, 1),
		nbWest:      moveX(bits, step, -1),
		nbNorthEast: moveY(moveX(bits, step, 1), step, 1),
		nbNorthWest: moveY(moveX(bits, step, -1), step, 1),
		nbSouthEast: moveY(moveX(bits, step, 1), step, -1),
		nbSouthWest: moveY(moveX(bits, step, -1), step, -1),
	}
}

// NewSearch plans a query centred at (lon, lat), which must be Valid, as
// geohashCalculateAreasByShapeWGS84 and membersOfAllNeighbors do.
// For a polygon shape, (lon, lat) is ignored: the search is centred on the
// polygon's Centroid.
func NewSearch(lon, lat float64, shape Shape) *Search {
	if shape.Polygon != nil {
		lon, lat = shape.Polygon.Centroid()
	}
	s := &Search{Lon: lon, Lat: lat, Shape: shape, NeedDist: true, near: NewNear(lon, lat)}
	if shape.Polygon != nil {
		s.planPolygon()
	} else {
		s.plan()
	}
	return s
}

func (s *Search) plan() {
	sh := s.Shape
	f := sh.Unit
	s.radiusM = float64(sh.Radius * f)
	s.widthM = float64(sh.Width * f)
	s.heightM = float64(sh.Height * f)

	var height, width, rangeMeters float64
	if sh.Box {
		height = float64(f * float64(sh.Height/2))
		width = float64(f * float64(sh.Width/2))
		hw, hh := sh.Width/2, sh.Height/2
		rangeMeters = math.Sqrt(float64(hw*hw) + float64(hh*hh))
	} else {
		height = float64(f * sh.Radius)
		width = height
		rangeMeters = sh.Radius
	}
	rangeMeters = float64(rangeMeters * f)
	bb := boundingBox(s.Lon, s.Lat, height, width)
	s.planCells(s.Lon, s.Lat, bb, estimateSteps(rangeMeters, s.Lat), true)
}

// planCells is the second half of geohashCalculateAreasByShapeWGS84 and
// membersOfAllNeighbors: the cell of (lon, lat) at step and its
// neighbours, less those the bounding box bb does not reach. With refine,
// it first goes one step coarser if the neighbours fall short of bb.
func (s *Search) planCells(lon, lat float64, bb box, step uint, refine bool) {
	bits := encodeBits(lonRange, latRange, lon, lat, step)
	nb := neighbours(bits, step)
	north := decodeArea(nb[nbNorth], step)
	south := decodeArea(nb[nbSouth], step)
	east := decodeArea(nb[nbEast], step)
	west := decodeArea(nb[nbWest], step)
	if refine && (north.latMax < bb.maxLat || south.latMin > bb.minLat ||
		east.lonMax < bb.maxLon || west.lonMin > bb.minLon) && step > 1 {
		step--
		bits = encodeBits(lonRange, latRange, lon, lat, step)
		nb = neighbours(bits, step)
	}
	centre := decodeArea(bits, step)
	var dropped [8]bool
	if step >= 2 {
		if centre.latMin < bb.minLat {
			dropped[nbSouth], dropped[nbSouthWest], dropped[nbSouthEast] = true, true, true
		}
		if centre.latMax > bb.maxLat {
			dropped[nbNorth], dropped[nbNorthEast], dropped[nbNorthWest] = true, true, true
		}
		if centre.lonMin < bb.minLon {
			dropped[nbWest], dropped[nbSouthWest], dropped[nbNorthWest] = true, true, true
		}
		if centre.lonMax > bb.maxLon {
			dropped[nbEast], dropped[nbSouthEast], dropped[nbNorthEast] = true, true, true
		}
	}
	s.step = step
	s.Cells = append(s.cells[:0], cellRange(bits, step))
	last := -1 // index into nb of the last scanned neighbour; -1 = the centre
	for i, b := range nb {
		if dropped[i] || (last >= 0 && b == nb[last]) {
			continue
		}
		s.Cells = append(s.Cells, cellRange(b, step))
		last = i
	}
}

// cellRange is scoresOfGeoHashBox: the 52-bit aligned score range of a
// cell, min inclusive, max exclusive, converted to double as the zset
// range lookup does.
func cellRange(bits uint64, step uint) Cell {
	shift := 52 - 2*step
	return Cell{Min: float64(bits << shift), Max: float64((bits + 1) << shift)}
}

// Match is Redis' inclusion test (geoWithinShape) for a member decoded
// to (lon, lat). dist is the distance in metres from the centre, which
// Redis reports (divided by the unit) and sorts by. As in Redis a NaN
// distance passes a radius test. A polygon tests Polygon.Contains and
// measures from the centroid.
func (s *Search) Match(lon, lat float64) (dist float64, ok bool) {
	if p := s.Shape.Polygon; p != nil {
		if !p.Contains(lon, lat) {
			return 0, false
		}
		return Distance(s.Lon, s.Lat, lon, lat), true
	}
	if !s.Shape.Box {
		d := Distance(s.Lon, s.Lat, lon, lat)
		return d, !(d > s.radiusM)
	}
	if latDistance(lat, s.Lat) > s.heightM/2 {
		return 0, false
	}
	if Distance(lon, lat, s.Lon, lat) > s.widthM/2 {
		return 0, false
	}
	return Distance(s.Lon, s.Lat, lon, lat), true
}

// CellOf returns the index in s.Cells of the first cell whose score range
// holds score, or -1 when Redis's scan would not visit it.
func (s *Search) CellOf(score float64) int {
	for i, c := range s.Cells {
		if score >= c.Min && score < c.Max {
			return i
		}
	}
	return -1
}

// NearestFirst reports whether a nearest-first walk can stand in for
// Redis's cell scan: circles only (a walk by distance stops at the radius),
// and no cell scanned twice (Redis would then report a member twice).
func (s *Search) NearestFirst() bool {
	if s.Shape.Box || s.Shape.Polygon != nil {
		return false
	}
	for i, a := range s.Cells {
		for _, b := range s.Cells[i+1:] {
			if a.Min < b.Max && b.Min < a.Max {
				return false
			}
		}
	}
	return true
}

// RadiusMetres is the circle's radius as Redis compares it (r*f).
func (s *Search) RadiusMetres() float64 { return s.radiusM }
