//go:build cgo

package geo

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lm
#include <math.h>

// Products must be rounded before they are added (no fused multiply-add),
// as in Redis' x86-64 build.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

// Verbatim arithmetic of Redis 7.0.15 geohash_helper.c
// (geohashGetDistance + geohashGetLatDistance), in one call so that a
// distance costs a single cgo transition.
static double geoshard_distance(double lon1d, double lat1d, double lon2d, double lat2d) {
	const double d_r = 0.017453292519943295; // M_PI / 180.0
	const double r = 6372797.560856;
	double lat1r, lon1r, lat2r, lon2r, u, v, a;
	lon1r = lon1d * d_r;
	lon2r = lon2d * d_r;
	v = sin((lon2r - lon1r) / 2);
	if (v == 0.0)
		return r * fabs(lat2d * d_r - lat1d * d_r);
	lat1r = lat1d * d_r;
	lat2r = lat2d * d_r;
	u = sin((lat2r - lat1r) / 2);
	a = u * u + cos(lat1r) * cos(lat2r) * v * v;
	return 2.0 * r * asin(sqrt(a));
}

struct geoshard_box { double min_lon, min_lat, max_lon, max_lat; };

// Redis 7.0.15 geohashBoundingBox, given the half height and half width
// in metres.
static struct geoshard_box geoshard_bounding_box(double lon, double lat, double height, double width) {
	const double d_r = 0.017453292519943295; // M_PI / 180.0
	const double r = 6372797.560856;
	const double lat_delta = (height / r) / d_r;
	const double long_delta_top = (width / r / cos((lat + lat_delta) * d_r)) / d_r;
	const double long_delta_bottom = (width / r / cos((lat - lat_delta) * d_r)) / d_r;
	struct geoshard_box b;
	int southern = lat < 0 ? 1 : 0;
	b.min_lon = southern ? lon - long_delta_bottom : lon - long_delta_top;
	b.max_lon = southern ? lon + long_delta_bottom : lon + long_delta_top;
	b.min_lat = lat - lat_delta;
	b.max_lat = lat + lat_delta;
	return b;
}
*/
import "C"

// ExactLibm reports whether Distance uses the C library's sin/cos/asin
// (bit-identical to Redis on the same libc) rather than Go's math package.
const ExactLibm = true

func distance(lon1, lat1, lon2, lat2 float64) float64 {
	return float64(C.geoshard_distance(C.double(lon1), C.double(lat1), C.double(lon2), C.double(lat2)))
}

func boundingBox(lon, lat, height, width float64) box {
	b := C.geoshard_bounding_box(C.double(lon), C.double(lat), C.double(height), C.double(width))
	return box{float64(b.min_lon), float64(b.min_lat), float64(b.max_lon), float64(b.max_lat)}
}
