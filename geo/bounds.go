package geo

import "math"

// Safety margins of the geometric helpers below. They only need to beat
// floating-point error in Match (a few ulps; ~1e-8 rad near antipodes).
const (
	relMargin   = 1e-9
	angMargin   = 1e-9 // radians, ~6 mm
	degMargin   = angMargin / degToRad
	distMargin  = 0.5 // metres
	fullLatBand = 90.0
)

// Bounds appends lon/lat rectangles that together contain every position
// Match can accept: the circle or box grown by a rounding margin, split
// at the antimeridian, widened to all longitudes when it reaches a pole
// (or is too wide). It is tight otherwise, so a 2 km search yields a
// rectangle of about 2 km. Latitudes are clipped to [MinLat, MaxLat].
func (s *Search) Bounds(dst []Rect) []Rect {
	if p := s.Shape.Polygon; p != nil {
		b := p.Box()
		return append(dst, Rect{b.MinLon - degMargin, math.Max(b.MinLat-degMargin, MinLat),
			b.MaxLon + degMargin, math.Min(b.MaxLat+degMargin, MaxLat)})
	}
	if s.Shape.Box {
		return s.boxBounds(dst)
	}
	return s.circleBounds(dst)
}

func (s *Search) circleBounds(dst []Rect) []Rect {
	theta := s.radiusM/EarthRadius*(1+relMargin) + angMargin // angular radius
	if !(theta < math.Pi/2) {                                // also +Inf and NaN
		// Wide enough to reach near the antipode, where haversine rounding
		// (and NaN distances, which pass) make geometry unreliable.
		return append(dst, Rect{MinLon, MinLat, MaxLon, MaxLat})
	}
	dLat := theta / degToRad
	lo, hi := s.Lat-dLat, s.Lat+dLat
	if lo <= -fullLatBand || hi >= fullLatBand {
		return appendLonSpan(dst, s.Lon, 180, lo, hi)
	}
	// Widest longitude extent of a small circle not containing a pole.
	x := math.Sin(theta) / math.Cos(s.Lat*degToRad) * (1 + relMargin)
	if x >= 1 {
		return appendLonSpan(dst, s.Lon, 180, lo, hi)
	}
	dLon := math.Asin(x)/degToRad*(1+relMargin) + degMargin
	return appendLonSpan(dst, s.Lon, dLon, lo, hi)
}

func (s *Search) boxBounds(dst []Rect) []Rect {
	dLat := (s.heightM/2)/EarthRadius/degToRad*(1+relMargin) + degMargin
	lo, hi := s.Lat-dLat, s.Lat+dLat
	if !(dLat < 360) {
		lo, hi = MinLat, MaxLat
	}
	// Along a parallel at latitude phi the haversine is 2R*asin(cos(phi) *
	// |sin(dlon/2)|), so the width test bounds |sin(dlon/2)| by
	// sin(w/4R)/cos(phi), loosest at the band's highest |latitude|.
	half := (s.widthM / 2) / (2 * EarthRadius) // w/4R
	if !(half < math.Pi/2*(1-relMargin)) {
		return appendLonSpan(dst, s.Lon, 180, lo, hi)
	}
	phi := math.Min(math.Max(math.Abs(lo), math.Abs(hi)), MaxLat)
	x := math.Sin(half)/math.Cos(phi*degToRad)*(1+relMargin) + 1e-15
	if x >= 1 {
		return appendLonSpan(dst, s.Lon, 180, lo, hi)
	}
	dLon := 2*math.Asin(x)/degToRad*(1+relMargin) + degMargin
	return appendLonSpan(dst, s.Lon, dLon, lo, hi)
}

// appendLonSpan appends [lon-dLon, lon+dLon] x [lo, hi] (latitudes
// clipped), split in two where it crosses the antimeridian.
func appendLonSpan(dst []Rect, lon, dLon, lo, hi float64) []Rect {
	lo, hi = math.Max(lo, MinLat), math.Min(hi, MaxLat)
	west, east := lon-dLon, lon+dLon
	switch {
	case dLon >= 180:
		return append(dst, Rect{MinLon, lo, MaxLon, hi})
	case west < MinLon:
		return append(dst, Rect{MinLon, lo, east, hi}, Rect{west + 360, lo, MaxLon, hi})
	case east > MaxLon:
		return append(dst, Rect{west, lo, MaxLon, hi}, Rect{MinLon, lo, east - 360, hi})
	}
	return append(dst, Rect{west, lo, east, hi})
}

// MinDistance returns a lower bound, in metres, of Distance(lon, lat, p)
// over all points p of r (0 when the point is inside r). It is the exact
// spherical distance to the rectangle less a rounding margin (0.5 m plus
// 1e-9 relative), measured the short way around, across the antimeridian
// if need be. Invalid or empty rectangles give 0.
func MinDistance(lon, lat float64, r Rect) float64 {
	if !(r.MinLon <= r.MaxLon && r.MinLat <= r.MaxLat) || lon != lon || lat != lat {
		return 0
	}
	minLat, maxLat := math.Max(r.MinLat, -90), math.Min(r.MaxLat, 90)
	if minLat > maxLat {
		return 0
	}
	var d float64
	if lonInside(lon, r.MinLon, r.MaxLon) {
		// The nearest point is due north or south: any other point of r is
		// at least that far in latitude alone.
		c := math.Min(math.Max(lat, minLat), maxLat)
		d = EarthRadius * math.Abs(lat-c) * degToRad
	} else {
		// Along a parallel, distance grows with the longitude gap, so the
		// nearest point lies on one of the two meridian edges.
		d = math.Min(meridianDistance(lon, lat, r.MinLon, minLat, maxLat),
			meridianDistance(lon, lat, r.MaxLon, minLat, maxLat))
	}
	return math.Max(0, d*(1-relMargin)-distMargin)
}

func lonInside(lon, minLon, maxLon float64) bool {
	if maxLon-minLon >= 360 {
		return true
	}
	for _, x := range [3]float64{lon, lon - 360, lon + 360} {
		if x >= minLon && x <= maxLon {
			return true
		}
	}
	return false
}

// meridianDistance is the distance from (lon, lat) to the meridian segment
// at longitude m between latitudes lo and hi. On the meridian, cos(d) =
// C*cos(phi - phiStar): the nearest point is phiStar clamped to [lo, hi]
// when phiStar is a latitude, else one of the ends.
func meridianDistance(lon, lat, m, lo, hi float64) float64 {
	dl := (lon - m) * degToRad
	phi := lat * degToRad
	star := math.Atan2(math.Sin(phi), math.Cos(phi)*math.Cos(dl)) / degToRad
	d := math.Min(distanceGo(lon, lat, m, lo), distanceGo(lon, lat, m, hi))
	if star >= -90 && star <= 90 {
		c := math.Min(math.Max(star, lo), hi)
		d = math.Min(d, distanceGo(lon, lat, m, c))
	}
	return d
}
