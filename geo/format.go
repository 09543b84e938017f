package geo

import (
	"math"
	"math/bits"
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
	if out, ok := appendFixed17(dst, x); ok {
		return out
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

// appendFixed17 is the fast path of AppendCoord for doubles in
// [2^-11, 2^52) in magnitude (every coordinate except the few cells
// nearest 0): the fraction mant/2^k times 10^17 is exact in 128 bits, so
// the 17 decimals are rounded half to even exactly as printf does.
// strconv's 'f' with 17 decimals would take its slow big-decimal path.
func appendFixed17(dst []byte, x float64) ([]byte, bool) {
	const pow17 = 100000000000000000
	b := math.Float64bits(x)
	exp := int(b>>52) & 0x7ff
	if exp == 0 || exp == 0x7ff {
		return dst, false
	}
	k := 1075 - exp // x = mant / 2^k
	if k < 1 || k > 63 {
		return dst, false
	}
	mant := b&(1<<52-1) | 1<<52
	ip := mant >> k
	fm := mant & (1<<k - 1)
	hi, lo := bits.Mul64(fm, pow17)
	q := hi<<(64-k) | lo>>k // < 10^17 because fm < 2^k
	r, half := lo&(1<<k-1), uint64(1)<<(k-1)
	if r > half || (r == half && q&1 == 1) {
		q++
		if q == pow17 {
			q, ip = 0, ip+1
		}
	}
	if b>>63 != 0 && (ip != 0 || q != 0) {
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, ip, 10)
	if q == 0 {
		return dst, true
	}
	var frac [17]byte
	n := 17
	for i := 16; i >= 0; i-- {
		frac[i] = byte('0' + q%10)
		q /= 10
	}
	for frac[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, frac[:n]...), true
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
