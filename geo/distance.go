package geo

import "math"

// Distance returns the great-circle distance in metres between two points
// given in degrees, evaluated exactly like Redis 7.0.15's
// geohashGetDistance: haversine with R = EarthRadius, and R*|Δlat| when
// the longitudes give sin(Δlon/2) == 0. It is symmetric bit for bit.
//
// With cgo the sines, cosines and arcsine come from the C library (glibc
// in Redis' build), so results are bit-identical to the server. Without
// cgo Go's math package is used; it differs from glibc in the last bit of
// about a third of the results, which is invisible in 4-decimal replies
// except for rare rounding-boundary cases.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	return distance(lon1, lat1, lon2, lat2)
}

// latDistance is geohashGetLatDistance: R * |rad(lat2) - rad(lat1)|.
func latDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(float64(lat2*degToRad)-float64(lat1*degToRad))
}

// distanceGo is the haversine with Go's math package. Products are
// wrapped in float64() so that no fused multiply-add changes rounding.
func distanceGo(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := float64(lon1 * degToRad)
	lon2r := float64(lon2 * degToRad)
	v := math.Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	lat1r := float64(lat1 * degToRad)
	lat2r := float64(lat2 * degToRad)
	u := math.Sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(math.Cos(lat1r)*math.Cos(lat2r))*v)*v)
	return (2.0 * EarthRadius) * math.Asin(math.Sqrt(a))
}
