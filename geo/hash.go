package geo

import "github.com/mmcloughlin/geohash"

// Hash returns the 11-character GEOHASH string of a score, as Redis builds
// it: the centre of the score's cell (decoded with Redis's own latitude
// range, ±85.05112878, which is why Decode stays ours) re-encoded as a
// standard geohash, whose latitude range is ±90, to ten characters (50
// bits), then a constant '0' where Redis's 52 bits run out. The standard
// encoding is github.com/mmcloughlin/geohash's; TestHashLibrary checks it
// against the arithmetic it replaced and against redis-server.
func Hash(score float64) string {
	lon, lat := Decode(score)
	return geohash.EncodeWithPrecision(lat, lon, 10) + "0"
}
