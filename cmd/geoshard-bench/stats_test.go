package main

import (
	"testing"
	"time"
)

func TestPhaseStatsRounds(t *testing.T) {
	tests := []struct {
		name       string
		rounds     []uint64 // ops per one-second round
		srvCPU     []float64
		wantMedian float64
		wantSrvCPU float64
	}{
		{"one round", []uint64{100}, []float64{1}, 100, 1},
		{"odd", []uint64{300, 100, 200}, []float64{1, 1, 1}, 200, 3},
		{"even, one dip ignored", []uint64{1000, 100, 1000, 1100}, []float64{1, 1, 1, 1}, 1000, 4},
		{"a round without INFO poisons CPU", []uint64{100, 100}, []float64{1, -1}, 100, -1},
		{"poisoned stays poisoned", []uint64{100, 100, 100}, []float64{-1, 1, 1}, 100, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPhaseStats()
			var total uint64
			for i, ops := range tc.rounds {
				c := newConnStats()
				c.ops = ops
				total += ops
				p.addRound(c, time.Second, tc.srvCPU[i], 0.5)
			}
			if got := p.medianRate(); got != tc.wantMedian {
				t.Errorf("median rate %v, want %v", got, tc.wantMedian)
			}
			if p.srvCPU != tc.wantSrvCPU {
				t.Errorf("server CPU %v, want %v", p.srvCPU, tc.wantSrvCPU)
			}
			if p.ops != total || p.elapsed != time.Duration(len(tc.rounds))*time.Second {
				t.Errorf("totals: %d ops in %v", p.ops, p.elapsed)
			}
		})
	}
	if got := newPhaseStats().medianRate(); got != 0 {
		t.Errorf("no rounds: median %v, want 0", got)
	}
}
