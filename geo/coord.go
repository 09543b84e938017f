// Package geo reproduces, bit for bit, the arithmetic, parsing and
// formatting behind the GEO commands of Redis 7.0.15 (see
// the project's GEO-SPEC.md): the 52-bit interleaved score, cell decoding,
// haversine distances, the nine-cell search plan and the result ordering.
// It adds one shape Redis 7.0 lacks, Valkey 9.0's BYPOLYGON (Polygon), whose
// choices where Valkey leaves a case open are documented on the type.
//
// It is a leaf package: the standard library, libm through cgo so that
// distances match glibc to the last bit, and github.com/mmcloughlin/geohash
// for the standard geohash alphabet of GEOHASH strings.
package geo

import "strconv"

// Coordinate limits of the Redis score (EPSG:3785 latitude limit) and the
// earth radius Redis uses for every distance.
const (
	MinLon, MaxLon = -180.0, 180.0
	MinLat, MaxLat = -85.05112878, 85.05112878
	EarthRadius    = 6372797.560856
)

// degToRad is C's (M_PI / 180.0) evaluated in double. It is spelled as a
// literal because Go would fold math.Pi/180 in exact arithmetic, which
// could round differently.
const degToRad = 0.017453292519943295

// Valid reports whether a parsed coordinate pair is accepted by GEOADD and
// the search commands (bounds inclusive, NaN rejected).
func Valid(lon, lat float64) bool {
	return lon >= MinLon && lon <= MaxLon && lat >= MinLat && lat <= MaxLat
}

// InvalidPairError is the error line (without the leading '-') Redis sends
// for an out-of-range pair: both values formatted like C's "%f".
func InvalidPairError(lon, lat float64) string {
	b := make([]byte, 0, 64)
	b = append(b, "ERR invalid longitude,latitude pair "...)
	b = appendCF(b, lon)
	b = append(b, ',')
	b = appendCF(b, lat)
	return string(b)
}

// appendCF formats x like glibc printf("%f"): the exact decimal value
// rounded to 6 places; infinities and NaN spelled the C way.
func appendCF(dst []byte, x float64) []byte {
	switch {
	case x != x:
		if signbit(x) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case x > maxFloat:
		return append(dst, "inf"...)
	case x < -maxFloat:
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, x, 'f', 6, 64)
}
