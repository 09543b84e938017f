package geo

// Step is the number of bits per axis of a stored score (GEO_STEP_MAX).
const Step = 26

// interleave spreads lat to the even bits and lon to the odd bits
// (geohash.c interleave64); bits above 32 of either value are dropped.
func interleave(lat, lon uint32) uint64 {
	return spread(lat) | spread(lon)<<1
}

func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// deinterleave returns the even bits (latitude index) and odd bits
// (longitude index) of bits.
func deinterleave(bits uint64) (lat, lon uint32) {
	return gather(bits), gather(bits >> 1)
}

func gather(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// coordRange is a GeoHashRange.
type coordRange struct{ min, max float64 }

var (
	lonRange = coordRange{MinLon, MaxLon}
	latRange = coordRange{MinLat, MaxLat}
)

// encodeBits is geohashEncode for an already validated point: the cell
// index at the given step, truncating, without masking the overflow bit
// that lon=180 or lat=max produce.
func encodeBits(lonR, latR coordRange, lon, lat float64, step uint) uint64 {
	latOff := (lat - latR.min) / (latR.max - latR.min)
	lonOff := (lon - lonR.min) / (lonR.max - lonR.min)
	scale := float64(uint64(1) << step)
	latOff = float64(latOff * scale)
	lonOff = float64(lonOff * scale)
	return interleave(toUint32(latOff), toUint32(lonOff))
}

// toUint32 converts like C's implicit double->uint32_t for the values an
// encoder can see ([0, 2^step]); anything else (impossible for validated
// input) maps to 0 instead of being implementation defined.
func toUint32(x float64) uint32 {
	if x >= 0 && x < 4294967296.0 {
		return uint32(x)
	}
	return 0
}

// area is a GeoHashArea: the lon/lat rectangle of one cell.
type area struct{ lonMin, lonMax, latMin, latMax float64 }

// decodeArea is geohashDecode: the rectangle of cell bits at step, in the
// exact operation order of the C code ((idx*1.0/2^step)*scale + min) and
// with uint32 wrap-around of idx+1.
func decodeArea(bits uint64, step uint) area {
	latIdx, lonIdx := deinterleave(bits)
	latScale := latRange.max - latRange.min
	lonScale := lonRange.max - lonRange.min
	div := float64(uint64(1) << step)
	return area{
		lonMin: lonRange.min + float64(float64(float64(lonIdx)/div)*lonScale),
		lonMax: lonRange.min + float64(float64(float64(lonIdx+1)/div)*lonScale),
		latMin: latRange.min + float64(float64(float64(latIdx)/div)*latScale),
		latMax: latRange.min + float64(float64(float64(latIdx+1)/div)*latScale),
	}
}

// centre is geohashDecodeAreaToLongLat: the middle of the cell, clamped to
// the valid range.
func (a area) centre() (lon, lat float64) {
	lon = (a.lonMin + a.lonMax) / 2
	if lon > MaxLon {
		lon = MaxLon
	}
	if lon < MinLon {
		lon = MinLon
	}
	lat = (a.latMin + a.latMax) / 2
	if lat > MaxLat {
		lat = MaxLat
	}
	if lat < MinLat {
		lat = MinLat
	}
	return lon, lat
}

// Encode returns the zset score GEOADD stores for a point that passed
// Valid. Points on the east edge (lon=180) or the north edge
// (lat=MaxLat) overflow into bit 52/53 exactly as in Redis; above 2^53
// the score is the nearest double. Encode of an invalid point returns 0.
func Encode(lon, lat float64) float64 {
	if !Valid(lon, lat) {
		return 0
	}
	return float64(encodeBits(lonRange, latRange, lon, lat, Step))
}

// Decode returns the position GEOPOS reports for a score: the centre of
// its 26-bit cell, clamped. Any double is accepted and converted to bits
// like C's (uint64_t) cast on x86-64 (fractions truncated, -1 -> all ones,
// 1e20 and +Inf -> 0).
func Decode(score float64) (lon, lat float64) {
	return decodeArea(cUint64(score), Step).centre()
}
