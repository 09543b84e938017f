//go:build !cgo

package geo

// ExactLibm reports whether Distance uses the C library's sin/cos/asin
// (bit-identical to Redis on the same libc) rather than Go's math package.
// Without cgo it does not: distances may differ from Redis in the last
// bit, so 4-decimal strings agree except at rare rounding boundaries.
const ExactLibm = false

func distance(lon1, lat1, lon2, lat2 float64) float64 {
	return distanceGo(lon1, lat1, lon2, lat2)
}

func boundingBox(lon, lat, height, width float64) box {
	return boundingBoxGo(lon, lat, height, width)
}
