package geo

import "math"

// Near answers, for one centre, cheap lower bounds of the distance to
// rectangles: what a nearest-first walk asks of every node it meets, so it
// costs a handful of floating-point operations where MinDistance solves the
// spherical problem exactly.
type Near struct {
	lon, lat, cosLat float64
}

// NewNear prepares bounds for the centre (lon, lat).
func NewNear(lon, lat float64) Near {
	return Near{lon: lon, lat: lat, cosLat: math.Cos(lat * degToRad)}
}

// Bound returns a lower bound, in metres, of Distance from the centre to any
// point of r. With Δφ and Δλ the smallest latitude and longitude gaps to r,
// haversine gives hav(d) = hav(Δφ') + cos φ cos φ' hav(Δλ') >= hav(Δφ) +
// cos φ cos φmax hav(Δλ), φmax the largest |latitude| in r. Each factor is
// then bounded below by a polynomial (sin x >= x - x³/6, cos y >= 1 - y²/2,
// asin x >= x), so the bound costs a dozen multiplications and no call:
// a walk asks it of every node and item it meets.
func (n *Near) Bound(r Rect) float64 {
	// Plain comparisons, not math.Min/Max: this runs for every entry of
	// every cell and member a walk opens, and those handle NaN and -0 at a
	// cost that showed in profiles.
	var dlat float64
	if n.lat < r.MinLat {
		dlat = r.MinLat - n.lat
	} else if n.lat > r.MaxLat {
		dlat = n.lat - r.MaxLat
	}
	x := dlat * degToRad / 2
	s1 := x - x*x*x/6
	h := s1 * s1
	if dlon := lonGap(n.lon, r.MinLon, r.MaxLon); dlon != 0 {
		y := r.MaxLat
		if -r.MinLat > y {
			y = -r.MinLat
		}
		y *= degToRad
		c := 1 - y*y/2
		if c < 0 {
			c = 0
		}
		z := dlon * degToRad / 2
		s2 := z - z*z*z/6
		h += n.cosLat * c * s2 * s2
	}
	d := (2*EarthRadius*sqrt(h))*(1-relMargin) - distMargin
	if d < 0 {
		return 0
	}
	return d
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// lonGap is the smallest longitude difference, in degrees (at most 180),
// from lon to the span [lo, hi] within [-180, 180], going either way round.
func lonGap(lon, lo, hi float64) float64 {
	var east, west float64 // gap going each way
	switch {
	case lon >= lo && lon <= hi:
		return 0
	case lon < lo:
		east, west = lo-lon, lon+360-hi
	default:
		east, west = lo+360-lon, lon-hi
	}
	if west < east {
		east = west
	}
	if east > 180 {
		return 180
	}
	return east
}
