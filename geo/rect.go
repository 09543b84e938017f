package geo

import "math/bits"

// Rect is a longitude/latitude rectangle in degrees. A rectangle never
// crosses the antimeridian: an area that does is described by two.
type Rect struct {
	MinLon, MinLat, MaxLon, MaxLat float64
}

// Intersects reports whether r and o share at least one point.
func (r Rect) Intersects(o Rect) bool {
	return r.MinLon <= o.MaxLon && o.MinLon <= r.MaxLon &&
		r.MinLat <= o.MaxLat && o.MinLat <= r.MaxLat
}

// Contains reports whether the point lies in r, borders included.
func (r Rect) Contains(lon, lat float64) bool {
	return lon >= r.MinLon && lon <= r.MaxLon && lat >= r.MinLat && lat <= r.MaxLat
}

// CellRect returns the rectangle that every score in [start, start+4^n)
// decodes into, for start a multiple of 4^n: the geohash cell n levels
// above a single stored score (n <= Step). Cells past the east or north
// edge (the overflow scores of lon=180 and lat=MaxLat, up to 2^54) come
// back clamped to the edge, where Decode puts their members.
func CellRect(start uint64, n uint) Rect {
	a := decodeArea(start>>(2*n), Step-n)
	return Rect{
		MinLon: min(a.lonMin, MaxLon), MinLat: min(a.latMin, MaxLat),
		MaxLon: min(a.lonMax, MaxLon), MaxLat: min(a.latMax, MaxLat),
	}
}

// Rect returns the rectangle every score of the cell decodes into, and
// false when the cell is not an aligned geohash cell (Redis's never fail
// that, but a caller must then assume the whole world).
func (c Cell) Rect() (Rect, bool) {
	if !(c.Min >= 0 && c.Max <= 1<<52 && c.Max > c.Min) {
		return Rect{}, false
	}
	start, width := uint64(c.Min), uint64(c.Max)-uint64(c.Min)
	k := bits.TrailingZeros64(width)
	if k%2 != 0 || width != 1<<k || start%width != 0 || float64(start) != c.Min || float64(start+width) != c.Max {
		return Rect{}, false
	}
	return CellRect(start, uint(k/2)), true
}
