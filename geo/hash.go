package geo

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// Hash returns the 11-character GEOHASH string of a score: the decoded
// cell centre re-encoded with the standard [-90,90] latitude range, ten
// 5-bit groups from bit 51 down, then a constant '0'.
func Hash(score float64) string {
	var buf [11]byte
	return string(appendHash(buf[:0], score))
}

func appendHash(dst []byte, score float64) []byte {
	lon, lat := Decode(score)
	bits := encodeBits(lonRange, stdLatRange, lon, lat, Step)
	for i := 0; i < 10; i++ {
		dst = append(dst, geoAlphabet[(bits>>(52-uint(i+1)*5))&0x1f])
	}
	return append(dst, '0')
}
