package geo

import (
	"math"
	"strconv"
)

// AppendCoord appends a coordinate the way Redis 7.0 prints GEOPOS and
// WITHCOORD values: "%.17Lf" (the exact value rounded to 17 decimals),
// trailing zeros and a trailing '.' removed, "-0" printed as "0".
func AppendCoord(dst []byte, x float64) []byte {
	switch {
	case x != x:
		return append(dst, "nan"...)
	case x > math.MaxFloat64:
		return append(dst, "inf"...)
	case x < -math.MaxFloat64:
		return append(dst, "-inf"...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', 17, 64)
	end := len(dst)
	for dst[end-1] == '0' {
		end--
	}
	if dst[end-1] == '.' {
		end--
	}
	dst = dst[:end]
	if end-start == 2 && dst[start] == '-' && dst[start+1] == '0' {
		dst = append(dst[:start], '0')
	}
	return dst
}

// AppendDist appends a distance (already divided by the unit factor) as
// Redis 7.0.15 replies to GEODIST and WITHDIST: llrint(d*10000) (round
// half to even) printed with exactly four decimals, "0." for values below
// one, "0.0000" for zero. Like Redis, a NaN or out-of-range value prints
// as LLONG_MIN/10000.
func AppendDist(dst []byte, d float64) []byte {
	if d == 0 {
		return append(dst, "0.0000"...)
	}
	sv := llrint(float64(d * 10000))
	var v uint64
	if sv < 0 {
		dst = append(dst, '-')
		v = uint64(-sv) // LLONG_MIN negates to 2^63 as an unsigned value
	} else {
		v = uint64(sv)
	}
	dst = strconv.AppendUint(dst, v/10000, 10)
	frac := v % 10000
	return append(dst, '.',
		byte('0'+frac/1000), byte('0'+frac/100%10), byte('0'+frac/10%10), byte('0'+frac%10))
}

// AppendScore appends a double the way Redis 7.0 replies with a zset
// score or any double in RESP2 (ZSCORE, ZRANGE WITHSCORES, STOREDIST
// results): C "%.17g", with "inf" and "-inf" for infinities.
func AppendScore(dst []byte, x float64) []byte {
	switch {
	case x != x:
		return append(dst, "nan"...)
	case x > math.MaxFloat64:
		return append(dst, "inf"...)
	case x < -math.MaxFloat64:
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, x, 'g', 17, 64)
}
