package commands

import (
	"strconv"

	"geoshard/geo"
)

// BYPOLYGON (Valkey 9.0): GEOSEARCH key BYPOLYGON num-vertices lon lat
// [lon lat ...] [options], in place of FROMMEMBER/FROMLONLAT and
// BYRADIUS/BYBOX. The centre is the polygon's centroid and distances are
// in metres (geo.Polygon says how borders, self-intersections and the
// antimeridian are treated).

// errPolygonConflict answers a second shape or a centre next to
// BYPOLYGON, where Valkey sends a bare syntax error.
const errPolygonConflict = "ERR BYPOLYGON cannot be combined with FROMMEMBER, FROMLONLAT, BYRADIUS, BYBOX or another BYPOLYGON"

// isShapeOption reports whether o names a centre or a shape.
func isShapeOption(o []byte) bool {
	return eq(o, "frommember") || eq(o, "fromlonlat") || eq(o, "byradius") || eq(o, "bybox") || eq(o, "bypolygon")
}

// parsePolygon reads "num-vertices lon lat [lon lat ...]" from words and
// returns how many words it used. Errors follow Valkey's where it has one
// (the count, fewer than 3 vertices, each coordinate pair); a count larger
// than the words that follow gets its own message.
func parsePolygon(s *geo.Shape, a *searchArgs, words [][]byte, flags int) (int, string) {
	if a.byPolygon || a.byRadius || a.byBox || a.fromMember || a.fromLoc {
		return 0, errPolygonConflict
	}
	name := "GEOSEARCH"
	if flags&searchStore != 0 {
		name = "GEOSEARCHSTORE"
	}
	n, ok := geo.ParseInt(words[0])
	if !ok || n != int64(int32(n)) {
		return 0, "ERR invalid number of vertices"
	}
	if n < 3 {
		return 0, "ERR " + name + " BYPOLYGON must have at least 3 vertices"
	}
	if have := int64(len(words) - 1); n > have/2 {
		return 0, "ERR " + name + " BYPOLYGON has " + strconv.FormatInt(n, 10) +
			" vertices but only " + strconv.FormatInt(have, 10) + " arguments follow, need " + strconv.FormatInt(2*n, 10)
	}
	coords := make([]float64, 2*n)
	for j := int64(0); j < n; j++ {
		lon, lat, err := parseLonLat(words[1+2*j], words[2+2*j])
		if err != "" {
			return 0, err
		}
		coords[2*j], coords[2*j+1] = lon, lat
	}
	*s = geo.Shape{Polygon: geo.NewPolygon(coords), Unit: 1}
	return int(1 + 2*n), ""
}
