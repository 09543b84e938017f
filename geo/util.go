package geo

import "math"

const maxFloat = math.MaxFloat64

func signbit(x float64) bool { return math.Signbit(x) }

// cvttsd2si is the x86-64 truncating double->int64 conversion: values
// outside the int64 range (and NaN) give the "integer indefinite" value.
func cvttsd2si(x float64) int64 {
	if x >= -9223372036854775808.0 && x < 9223372036854775808.0 {
		return int64(x)
	}
	return math.MinInt64
}

// cUint64 is C's (uint64_t)x as gcc compiles it for x86-64: below 2^63 a
// signed conversion (so -1 becomes all ones), otherwise a conversion of
// x-2^63 with the top bit flipped (so 1e20 and +Inf become 0).
func cUint64(x float64) uint64 {
	const two63 = 9223372036854775808.0
	if !(x >= two63) {
		return uint64(cvttsd2si(x))
	}
	return uint64(cvttsd2si(x-two63)) ^ (1 << 63)
}

// llrint is glibc's llrint on x86-64: round half to even in the default
// rounding mode, out-of-range results (and NaN) give math.MinInt64.
func llrint(x float64) int64 {
	r := math.RoundToEven(x)
	if r >= -9223372036854775808.0 && r < 9223372036854775808.0 {
		return int64(r)
	}
	return math.MinInt64
}
