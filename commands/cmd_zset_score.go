package commands

import (
	"math"
	"strconv"

	"geoshard/geo"
	"geoshard/router"
)

// parseScoreRange reads a BYSCORE min and max as Redis's zslParseRange:
// "(" makes a bound exclusive.
func parseScoreRange(minArg, maxArg []byte) (lo, hi router.Bound, ok bool) {
	if lo, ok = parseScoreBound(minArg); !ok {
		return
	}
	hi, ok = parseScoreBound(maxArg)
	return
}

func parseScoreBound(b []byte) (router.Bound, bool) {
	b = cstr(b)
	var bd router.Bound
	if len(b) > 0 && b[0] == '(' {
		bd.Exclusive = true
		b = b[1:]
	}
	x, ok := strtodWhole(b)
	bd.Score = x
	return bd, ok
}

// strtodWhole reads a number as C strtod does when the caller then only
// insists that nothing follows it and that it is not NaN: leading white
// space is skipped, overflow gives ±inf, underflow 0, and an empty input
// is 0 (strtod converts nothing and stops at the terminating NUL).
func strtodWhole(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	t := b
	for len(t) > 0 && (t[0] == ' ' || (t[0] >= '\t' && t[0] <= '\r')) {
		t = t[1:]
	}
	if x, ok := geo.ParseFloat(t); ok {
		return x, true
	}
	// What ParseFloat refuses beyond bad syntax and NaN is a number out of
	// range, which strtod clamps.
	return parseOutOfRange(t)
}

// parseOutOfRange converts a syntactically complete C floating-point
// literal whose value overflows or underflows a double.
func parseOutOfRange(t []byte) (float64, bool) {
	s := string(t)
	body := s
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	hex := len(body) > 1 && body[0] == '0' && (body[1]|0x20) == 'x'
	digit := func(ch byte) bool { return ch >= '0' && ch <= '9' }
	if hex {
		body = body[2:]
		digit = func(ch byte) bool {
			return (ch >= '0' && ch <= '9') || (ch|0x20 >= 'a' && ch|0x20 <= 'f')
		}
	}
	i, n := 0, 0
	for i < len(body) && digit(body[i]) {
		i, n = i+1, n+1
	}
	if i < len(body) && body[i] == '.' {
		i++
		for i < len(body) && digit(body[i]) {
			i, n = i+1, n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	exp := byte('e')
	if hex {
		exp = 'p'
	}
	hasExp := false
	if i < len(body) && body[i]|0x20 == exp {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		m := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i, m = i+1, m+1
		}
		if m == 0 {
			return 0, false
		}
		hasExp = true
	}
	if i != len(body) {
		return 0, false
	}
	if hex && !hasExp {
		s += "p0" // Go insists on a binary exponent
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}
