package commands

import (
	"math"
	"testing"
)

func TestParseScoreBound(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		in    string
		score float64
		ex    bool
		ok    bool
	}{
		{"1", 1, false, true},
		{"(1", 1, true, true},
		{"", 0, false, true},
		{"(", 0, true, true},
		{" 2", 2, false, true},
		{"2 ", 0, false, false},
		{" ", 0, false, false},
		{"1e400", inf, false, true},
		{"-1e400", -inf, false, true},
		{"1e-400", 0, false, true},
		{"0x1p4", 16, false, true},
		{"0x1p99999", inf, false, true},
		{"0x", 0, false, false},
		{"1_0", 0, false, false},
		{"nan", 0, false, false},
		{"(nan", 0, false, false},
		{"inf", inf, false, true},
		{"-infinity", -inf, false, true},
		{"1e", 0, false, false},
		{"1\x00junk", 1, false, true},
		{"+.5", 0.5, false, true},
		{".", 0, false, false},
	} {
		b, ok := parseScoreBound([]byte(tc.in))
		if ok != tc.ok || (ok && (b.Score != tc.score || b.Exclusive != tc.ex)) {
			t.Errorf("parseScoreBound(%q) = %v, %v; want %v (ex %v), %v", tc.in, b.Score, ok, tc.score, tc.ex, tc.ok)
		}
	}
}
