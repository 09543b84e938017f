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
				p.addRound(round{connStats: c, elapsed: time.Second, srvCPU: tc.srvCPU[i], cliCPU: 0.5})
			}
			if got := p.medianRate(); got != tc.wantMedian {
				t.Errorf("median rate %v, want %v", got, tc.wantMedian)
			}
			if p.srvCPU != tc.wantSrvCPU {
				t.Errorf("server CPU %v, want %v", p.srvCPU, tc.wantSrvCPU)
			}
			n := time.Duration(len(tc.rounds))
			if p.ops != total || p.elapsed != n*time.Second || p.cliCPU != float64(n)/2 {
				t.Errorf("totals: %d ops in %v, client CPU %v", p.ops, p.elapsed, p.cliCPU)
			}
		})
	}
	if got := newPhaseStats().medianRate(); got != 0 {
		t.Errorf("no rounds: median %v, want 0", got)
	}
}

func TestRoundsFor(t *testing.T) {
	tests := []struct {
		rounds   int
		duration time.Duration
		targets  int
		want     int
	}{
		{10, 10 * time.Second, 2, 10},
		{10, 3 * time.Second, 2, 6}, // 0.5 s rounds at least
		{10, 2500 * time.Millisecond, 2, 4},
		{10, time.Second, 2, 2},
		{10, 400 * time.Millisecond, 2, 1},
		{10, 0, 2, 10}, // bounded by -requests only
		{3, 10 * time.Second, 2, 3},
		{10, 10 * time.Second, 1, 1},
	}
	for _, tc := range tests {
		cfg := &config{rounds: tc.rounds, duration: tc.duration}
		if got := roundsFor(cfg, tc.targets); got != tc.want {
			t.Errorf("rounds %d, duration %v, %d targets: got %d, want %d", tc.rounds, tc.duration, tc.targets, got, tc.want)
		}
	}
}
