package geo

import (
	"math"
	"strconv"
	"unsafe"
)

// ParseFloat parses a double the way Redis' string2d does: C strtod over
// the whole input, then rejection of an empty input, a leading space,
// unconsumed bytes, NaN, overflow to ±HUGE_VAL and total underflow to 0.
// So "0x10" (16), "0x1p4", ".5", "5.", "+5", "inf", "-Infinity" and
// subnormals such as "1e-310" are accepted; " 5", "5 ", "1_0", "nan",
// "1e400" and "1e-400" are not. It does not allocate for ordinary
// decimal input.
func ParseFloat(b []byte) (float64, bool) {
	n := len(b)
	if n == 0 || isCSpace(b[0]) {
		return 0, false
	}
	i := 0
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i++
	}
	if i == n {
		return 0, false
	}
	switch b[i] | 0x20 {
	case 'i':
		if foldEq(b[i:], "inf") || foldEq(b[i:], "infinity") {
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		}
		return 0, false
	case 'n': // "nan" and "nan(...)" parse in C, but NaN is rejected
		return 0, false
	}
	if b[i] == '0' && i+1 < n && b[i+1]|0x20 == 'x' {
		return parseHex(b, i+2, neg)
	}
	return parseDecimal(b, i)
}

func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func foldEq(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// expCap bounds the exponent value we hand to strconv, which saturates
// exponents at 10000 while strtod does not.
const expCap = 9000

// parseDecimal validates the strtod decimal grammar from b[i:] (after the
// sign) and converts with strconv, which rounds correctly.
func parseDecimal(b []byte, i int) (float64, bool) {
	n := len(b)
	digits, nonzero := 0, false
	for ; i < n && isDigit(b[i]); i++ {
		digits++
		nonzero = nonzero || b[i] != '0'
	}
	if i < n && b[i] == '.' {
		for i++; i < n && isDigit(b[i]); i++ {
			digits++
			nonzero = nonzero || b[i] != '0'
		}
	}
	if digits == 0 {
		return 0, false
	}
	bigExp := false
	if i < n && b[i]|0x20 == 'e' {
		j := i + 1
		if j < n && (b[j] == '+' || b[j] == '-') {
			j++
		}
		e, k := 0, j
		for ; k < n && isDigit(b[k]); k++ {
			if e < expCap {
				e = e*10 + int(b[k]-'0')
			}
		}
		if k == j { // "1e" / "1e+": strtod stops before the 'e'
			return 0, false
		}
		bigExp = e >= expCap
		i = k
	}
	if i != n {
		return 0, false
	}
	if !nonzero {
		if b[0] == '-' {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if bigExp {
		return parseDecimalSlow(b)
	}
	v, err := strconv.ParseFloat(unsafe.String(&b[0], n), 64)
	if err != nil || v == 0 { // overflow, or a nonzero input rounded to 0
		return 0, false
	}
	return v, true
}

// parseDecimalSlow handles huge exponent literals: it rewrites the number
// as 0.DIGITSe(N) with the exponent computed in int64, which strconv can
// convert exactly whenever the result is finite and nonzero.
func parseDecimalSlow(b []byte) (float64, bool) {
	i := 0
	neg := b[0] == '-'
	if b[0] == '+' || b[0] == '-' {
		i++
	}
	sig := make([]byte, 0, len(b))
	var point int64 // decimal exponent of the position after the last integer digit
	seenDot := false
	for ; i < len(b) && b[i]|0x20 != 'e'; i++ {
		c := b[i]
		if c == '.' {
			seenDot = true
			continue
		}
		if len(sig) == 0 && c == '0' {
			if seenDot {
				point--
			}
			continue
		}
		sig = append(sig, c)
		if !seenDot {
			point++
		}
	}
	i++ // the 'e'
	eneg := false
	if b[i] == '+' || b[i] == '-' {
		eneg = b[i] == '-'
		i++
	}
	var e int64
	for ; i < len(b); i++ {
		if e < 1<<40 {
			e = e*10 + int64(b[i]-'0')
		}
	}
	if eneg {
		e = -e
	}
	exp := point + e // value = 0.SIG * 10^exp
	switch {
	case exp > 400:
		return 0, false // overflow
	case exp < -400:
		return 0, false // total underflow
	}
	return parseNormal(neg, "0.", sig, 'e', exp)
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

// parseHex handles strtod's hexadecimal form from b[i:] (after "0x"):
// hex digits with an optional point and an optional binary exponent
// "p[+-]digits" (not required, unlike in Go). The mantissa is normalised
// and handed to strconv in Go syntax.
func parseHex(b []byte, i int, neg bool) (float64, bool) {
	n := len(b)
	const keep = 40 // hex digits kept exactly; more only act as a sticky bit
	sig := make([]byte, 0, keep+1)
	sticky := false
	var point int64 // hex exponent: value = 0x0.SIG * 16^point
	seenDot, digits := false, 0
	for ; i < n; i++ {
		c := b[i]
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		if hexVal(c) < 0 {
			break
		}
		digits++
		if len(sig) == 0 && c == '0' {
			if seenDot {
				point--
			}
			continue
		}
		if len(sig) < keep {
			sig = append(sig, c)
		} else if c != '0' {
			sticky = true
		}
		if !seenDot {
			point++
		}
	}
	if digits == 0 { // "0x", "0x.": strtod reads just the "0"
		return 0, false
	}
	var e int64
	if i < n && b[i]|0x20 == 'p' {
		j := i + 1
		eneg := false
		if j < n && (b[j] == '+' || b[j] == '-') {
			eneg = b[j] == '-'
			j++
		}
		k := j
		for ; k < n && isDigit(b[k]); k++ {
			if e < 1<<40 {
				e = e*10 + int64(b[k]-'0')
			}
		}
		if k == j {
			return 0, false
		}
		if eneg {
			e = -e
		}
		i = k
	}
	if i != n {
		return 0, false
	}
	if len(sig) == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	exp2 := point*4 + e // value = 0x0.SIG * 2^exp2
	switch {
	case exp2 > 1100:
		return 0, false
	case exp2 < -1200:
		return 0, false
	}
	if sticky {
		sig = append(sig, '1')
	}
	return parseNormal(neg, "0x0.", sig, 'p', exp2)
}

// parseNormal hands strconv a number already stripped of everything it
// and strtod disagree on: sign, prefix, digits, exponent mark, exponent.
// A result of 0 is a total underflow, which strtod rejects.
func parseNormal(neg bool, prefix string, sig []byte, mark byte, exp int64) (float64, bool) {
	s := make([]byte, 0, len(sig)+16)
	if neg {
		s = append(s, '-')
	}
	s = append(s, prefix...)
	s = append(s, sig...)
	s = append(s, mark)
	s = strconv.AppendInt(s, exp, 10)
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil || v == 0 {
		return 0, false
	}
	return v, true
}

// ParseInt parses a COUNT argument like Redis' string2ll: optional '-',
// no '+', no leading zeros (so "-0" and "01" fail), at most 20 bytes,
// within int64.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n >= 21 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i := 0
	neg := false
	if b[0] == '-' {
		neg = true
		i++
		if i == n {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i]
		if !isDigit(c) {
			return 0, false
		}
		if v > math.MaxUint64/10 {
			return 0, false
		}
		v *= 10
		if v > math.MaxUint64-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// Unit factors to metres (Redis' mi is 1609.34, not 1609.344).
const (
	UnitM  = 1.0
	UnitKM = 1000.0
	UnitFT = 0.3048
	UnitMI = 1609.34
)

// ParseUnit maps a unit word (m, km, ft, mi; any case) to its factor to
// metres. Like Redis' strcasecmp on a C string, the word ends at its
// first NUL byte.
func ParseUnit(b []byte) (float64, bool) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	switch {
	case foldEq(b, "m"):
		return UnitM, true
	case foldEq(b, "km"):
		return UnitKM, true
	case foldEq(b, "ft"):
		return UnitFT, true
	case foldEq(b, "mi"):
		return UnitMI, true
	}
	return 0, false
}
