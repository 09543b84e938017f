package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// target is one server under test with its connections and the positions
// the tool believes it holds.
type target struct {
	label   string // "A" or "B"
	name    string // as given on the command line
	addr    string // resolved loopback ip:port
	clients []*client
	control *client // INFO, DEL, ZCARD: kept off the measured connections
	fleet   *fleet
	// rssBase is the server's RSS before the last load and members what it
	// held after it: every later phase reports RSS growth per member.
	rssBase, members int64
}

func (t *target) String() string { return t.label + " " + t.name }

func (t *target) close() {
	for _, c := range t.clients {
		c.close()
	}
	if t.control != nil {
		t.control.close()
	}
}

// run executes every phase of cfg against its targets and returns the
// report; it writes the table to out and progress to progress.
func run(ctx context.Context, cfg config, out, progress io.Writer) (*report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w := newWorkload(cfg.background)
	fleet := newFleet(w, cfg.drivers, cfg.seed)
	var targets []*target
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	for i, name := range cfg.targets {
		addr, err := resolveLoopback(ctx, name)
		if err != nil {
			return nil, err
		}
		t := &target{label: string(rune('A' + i)), name: name, addr: addr, fleet: fleet, rssBase: -1}
		if i > 0 {
			t.fleet = fleet.clone() // each target's drivers wander on their own
		}
		targets = append(targets, t)
		if t.control, err = dial(ctx, addr, cfg.password, cfg.timeout); err != nil {
			return nil, fmt.Errorf("target %s: %w", t, err)
		}
		for range cfg.conns {
			c, err := dial(ctx, addr, cfg.password, cfg.timeout)
			if err != nil {
				return nil, fmt.Errorf("target %s: %w", t, err)
			}
			t.clients = append(t.clients, c)
		}
	}
	rep := newReport(&cfg)
	fmt.Fprintln(progress, rep.header())
	for pi, ph := range cfg.phases {
		var pr phaseReport
		var err error
		switch ph.kind {
		case phaseLoad:
			pr, err = runLoadPhase(ctx, &cfg, targets, ph, progress)
		case phaseIdle:
			pr = runIdlePhase(ctx, &cfg, targets, ph, progress)
		default:
			pr, err = runClosedPhase(ctx, &cfg, w, targets, ph, pi, progress)
		}
		if err != nil {
			return rep, err
		}
		recordRSS(targets, &pr)
		rep.Phases = append(rep.Phases, pr)
		if ctx.Err() != nil {
			// Show what was measured so far; the last phase is partial.
			rep.print(out)
			return rep, fmt.Errorf("interrupted during %s: %w", ph.name, ctx.Err())
		}
	}
	rep.print(out)
	if cfg.jsonPath != "" {
		if err := rep.writeJSON(cfg.jsonPath); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// roundOrder gives the order of targets in round r: A,B then B,A, so drift
// on a shared, noisy machine (thermal, other tenants) hits both alike.
// It returns indexes into the target list.
func roundOrder(ntargets, r int) []int {
	if ntargets == 2 && r%2 == 1 {
		return []int{1, 0}
	}
	order := make([]int, ntargets)
	for i := range order {
		order[i] = i
	}
	return order
}

// minRound is the shortest round worth timing: in a shorter one the closed
// loop spends most of its time ramping up, never in a steady state.
const minRound = 500 * time.Millisecond

// roundsFor is the number of interleaved rounds: -rounds, fewer if that
// would make rounds shorter than minRound (then an even number, so each
// target goes first equally often), and 1 for a single target.
func roundsFor(cfg *config, ntargets int) int {
	if ntargets < 2 {
		return 1
	}
	r := cfg.rounds
	if cfg.duration > 0 && cfg.duration/time.Duration(r) < minRound {
		r = int(cfg.duration / minRound)
		r -= r % 2
	}
	return max(r, 1)
}

// measure runs one round and charges it the server CPU (from INFO, read
// before and after on the control connection) and this process's CPU.
func measure(t *target, body func() round) round {
	before, errBefore := t.control.info()
	cli0 := processCPU()
	r := body()
	r.cliCPU = processCPU() - cli0
	after, errAfter := t.control.info()
	r.srvCPU = -1
	if errBefore == nil && errAfter == nil && before.cpuSeconds >= 0 && after.cpuSeconds >= 0 {
		r.srvCPU = after.cpuSeconds - before.cpuSeconds
	}
	return r
}

func runClosedPhase(ctx context.Context, cfg *config, w *workload, targets []*target, ph phaseSpec, pi int, progress io.Writer) (phaseReport, error) {
	rounds := roundsFor(cfg, len(targets))
	stats := make([]*phaseStats, len(targets))
	for i := range stats {
		stats[i] = newPhaseStats()
	}
	plan := roundPlan{phase: ph, phaseIdx: pi, duration: cfg.duration / time.Duration(rounds)}
	if cfg.requests > 0 {
		plan.requests = (cfg.requests + rounds - 1) / rounds
	}
	for r := range rounds {
		plan.round = r
		for _, idx := range roundOrder(len(targets), r) {
			t := targets[idx]
			res := measure(t, func() round { return runClosedRound(ctx, cfg, w, t, plan) })
			stats[idx].addRound(res)
			fmt.Fprintf(progress, "  %s round %d/%d %s: %d ops in %.2fs (%.0f/s), %d errors\n",
				ph.name, r+1, rounds, t, res.ops, res.elapsed.Seconds(), rate(res.ops, res.elapsed), res.errors)
			if ctx.Err() != nil {
				return buildPhaseReport(cfg, ph, targets, stats), nil
			}
		}
	}
	return buildPhaseReport(cfg, ph, targets, stats), nil
}

// runLoadPhase empties the key on every target and loads the fleet. With two
// targets the fleet is cut into rounds slices loaded A,B,B,A..., so both
// loads see the same machine conditions. Memory per driver is the growth of
// used_memory over the load, divided by the members the server reports.
func runLoadPhase(ctx context.Context, cfg *config, targets []*target, ph phaseSpec, progress io.Writer) (phaseReport, error) {
	rounds := roundsFor(cfg, len(targets))
	stats := make([]*phaseStats, len(targets))
	done := make([]atomic.Int64, len(targets))
	memBefore := make([]int64, len(targets))
	for i, t := range targets {
		stats[i] = newPhaseStats()
		if _, err := t.control.command("DEL", cfg.key); err != nil {
			return phaseReport{}, fmt.Errorf("target %s: emptying %s before load: %w", t, cfg.key, err)
		}
		memBefore[i], t.rssBase = -1, -1
		if si, err := t.control.info(); err == nil {
			memBefore[i], t.rssBase = si.usedMemory, si.rss
		}
	}
	n := cfg.drivers
	for r := range rounds {
		from, to := n*r/rounds, n*(r+1)/rounds
		for _, idx := range roundOrder(len(targets), r) {
			t := targets[idx]
			stop := progressLine(ctx, progress, t.String(), &done[idx], n)
			res := measure(t, func() round { return runLoadRound(ctx, cfg, t, from, to, &done[idx]) })
			stop()
			stats[idx].addRound(res)
			if ctx.Err() != nil {
				return buildPhaseReport(cfg, ph, targets, stats), nil
			}
		}
	}
	pr := buildPhaseReport(cfg, ph, targets, stats)
	for i, t := range targets {
		res := &pr.Results[i]
		rep, err := t.control.command("ZCARD", cfg.key)
		if err != nil {
			return pr, fmt.Errorf("target %s: ZCARD after load: %w", t, err)
		}
		res.Members, t.members = rep.n, rep.n
		if rep.n != int64(n) {
			res.FirstError = fmt.Sprintf("ZCARD %s = %d after loading %d drivers", cfg.key, rep.n, n)
			res.Errors++
		}
		res.UsedMemoryBefore, res.UsedMemory = memBefore[i], -1
		if si, err := t.control.info(); err == nil {
			res.UsedMemory = si.usedMemory
		}
		res.BytesPerDriver = -1
		if res.UsedMemory >= 0 && res.UsedMemoryBefore >= 0 && rep.n > 0 {
			res.BytesPerDriver = float64(res.UsedMemory-res.UsedMemoryBefore) / float64(rep.n)
		}
		fmt.Fprintf(progress, "  load %s: %d drivers in %.2fs (%.0f/s), %d members, used_memory %d\n",
			t, res.Ops, res.Seconds, res.OpsPerSecOverall, res.Members, res.UsedMemory)
	}
	return pr, nil
}

// runIdlePhase sends nothing for the phase's time, to every target at
// once: a server's RSS right after a burst of searches holds that burst's
// garbage and free pages, and what it settles to is what an operator
// whose searches come in bursts pays.
func runIdlePhase(ctx context.Context, cfg *config, targets []*target, ph phaseSpec, progress io.Writer) phaseReport {
	fmt.Fprintf(progress, "  %s: no requests for %v\n", ph.name, ph.idle)
	select {
	case <-ctx.Done():
	case <-time.After(ph.idle):
	}
	stats := make([]*phaseStats, len(targets))
	for i := range stats {
		stats[i] = newPhaseStats()
	}
	pr := buildPhaseReport(cfg, ph, targets, stats)
	pr.Idle = true
	return pr
}

// recordRSS reads every target's RSS at the end of a phase and its growth
// per member since before the load: Go's heap grows past its live data
// between collections, so RSS after updates is the figure that counts.
func recordRSS(targets []*target, pr *phaseReport) {
	for i, t := range targets {
		res := &pr.Results[i]
		res.RSS, res.RSSPerDriver = -1, -1
		si, err := t.control.info()
		if err != nil || si.rss < 0 {
			continue
		}
		res.RSS = si.rss
		if t.rssBase >= 0 && t.members > 0 {
			res.RSSPerDriver = float64(si.rss-t.rssBase) / float64(t.members)
		}
	}
}

func rate(ops uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(ops) / d.Seconds()
}
