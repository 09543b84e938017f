//go:build cgo

// Package cref exposes the C library routines Redis 7.0.15 relies on, so
// that geo's tests can compare the Go port against the real thing
// (strtod, printf, casts, llrint, libm). Tests only; nothing else imports
// it.
package cref

/*
#cgo LDFLAGS: -lm
#include <errno.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

// Redis util.c string2d (7.0.15), on a NUL-terminated copy.
static int cref_string2d(const char *s, size_t slen, double *dp) {
	errno = 0;
	char *eptr;
	*dp = strtod(s, &eptr);
	if (slen == 0 ||
		isspace(((const char*)s)[0]) ||
		(size_t)(eptr-(char*)s) != slen ||
		(errno == ERANGE &&
			(*dp == HUGE_VAL || *dp == -HUGE_VAL || fpclassify(*dp) == FP_ZERO)) ||
		isnan(*dp))
		return 0;
	return 1;
}

static uint64_t cref_u64(double d) { return (uint64_t)d; }
static long long cref_llrint(double d) { return llrint(d); }

static int cref_fmt(char *buf, int len, int mode, double d) {
	switch (mode) {
	case 0: return snprintf(buf, len, "%f", d);
	case 1: return snprintf(buf, len, "%.17Lf", (long double)d);
	case 2: return snprintf(buf, len, "%.17g", d);
	}
	return 0;
}

static double cref_sin(double x) { return sin(x); }
static double cref_cos(double x) { return cos(x); }
static double cref_asin(double x) { return asin(x); }
*/
import "C"

import "unsafe"

// String2d is Redis' string2d: strtod plus its rejection rules.
func String2d(b []byte) (float64, bool) {
	cs := C.CBytes(append(append([]byte(nil), b...), 0))
	defer C.free(cs)
	var d C.double
	ok := C.cref_string2d((*C.char)(cs), C.size_t(len(b)), &d)
	return float64(d), ok != 0
}

// Uint64 is C's (uint64_t) cast of a double as compiled here.
func Uint64(d float64) uint64 { return uint64(C.cref_u64(C.double(d))) }

// Llrint is the C library's llrint.
func Llrint(d float64) int64 { return int64(C.cref_llrint(C.double(d))) }

func format(mode int, d float64) string {
	var buf [512]byte
	n := C.cref_fmt((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)), C.int(mode), C.double(d))
	return string(buf[:n])
}

// PrintfF is printf("%f", d).
func PrintfF(d float64) string { return format(0, d) }

// PrintfLf17 is printf("%.17Lf", (long double)d).
func PrintfLf17(d float64) string { return format(1, d) }

// PrintfG17 is printf("%.17g", d).
func PrintfG17(d float64) string { return format(2, d) }

// Sin, Cos and Asin are the C library's.
func Sin(x float64) float64  { return float64(C.cref_sin(C.double(x))) }
func Cos(x float64) float64  { return float64(C.cref_cos(C.double(x))) }
func Asin(x float64) float64 { return float64(C.cref_asin(C.double(x))) }
