package main

import (
	"slices"
	"syscall"
	"time"
)

// connStats is what one connection counts during one round. Each goroutine
// owns its own; they are added up when the round ends.
type connStats struct {
	hist     *histogram
	ops      uint64 // requests answered (for load: members sent)
	errors   uint64 // error replies and broken connections
	searches uint64 // search replies, to average their sizes
	results  uint64 // members returned by searches
	firstErr string
}

func newConnStats() *connStats { return &connStats{hist: newHistogram()} }

func (s *connStats) fail(msg string) {
	s.errors++
	if s.firstErr == "" {
		s.firstErr = msg
	}
}

func (s *connStats) add(o *connStats) {
	s.hist.merge(o.hist)
	s.ops += o.ops
	s.errors += o.errors
	s.searches += o.searches
	s.results += o.results
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
}

// round is one target's measured round.
type round struct {
	*connStats
	// elapsed runs until the last reply, requests in flight at the deadline
	// included: the server works on them inside the measurement. Counting
	// only replies before the deadline fails for slow searches, because
	// Redis answers a burst of them together at the end of an event-loop
	// pass: a short round would see 0 or 50 replies.
	elapsed time.Duration
	srvCPU  float64 // server CPU seconds from INFO; negative if not reported
	cliCPU  float64 // this process's CPU seconds
}

// phaseStats accumulates one target's rounds of one phase.
type phaseStats struct {
	connStats
	elapsed time.Duration
	srvCPU  float64 // negative once any round lacked INFO
	cliCPU  float64
	rates   []float64 // ops/s of each round
}

func newPhaseStats() *phaseStats { return &phaseStats{connStats: *newConnStats()} }

// addRound adds a round's counts. A round without server CPU poisons the
// total: a partial sum would mislead.
func (p *phaseStats) addRound(r round) {
	p.add(r.connStats)
	p.elapsed += r.elapsed
	p.rates = append(p.rates, rate(r.ops, r.elapsed))
	if r.srvCPU < 0 || p.srvCPU < 0 {
		p.srvCPU = -1
	} else {
		p.srvCPU += r.srvCPU
	}
	p.cliCPU += r.cliCPU
}

// processCPU returns the CPU seconds (user+system) this process has used,
// to show whether the tool itself was a bottleneck.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return tvSeconds(ru.Utime) + tvSeconds(ru.Stime)
}

func tvSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// medianRate is the middle of the rounds' rates. On a shared machine a
// neighbour's burst can halve one round; the median ignores such a round
// where the overall rate (total ops / total time) would carry it.
func (p *phaseStats) medianRate() float64 {
	if len(p.rates) == 0 {
		return 0
	}
	r := slices.Clone(p.rates)
	slices.Sort(r)
	n := len(r)
	if n%2 == 1 {
		return r[n/2]
	}
	return (r[n/2-1] + r[n/2]) / 2
}
