package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"geoshard/plan"
	"geoshard/resp"
)

// config is one simulation run.
type config struct {
	Addr           string
	Key            string
	Duration       time.Duration // wall-clock length of the run
	Drivers        int
	Interval       time.Duration // ping interval of each driver, simulated time
	SearchesPerSec float64       // rider searches per simulated second
	TimeScale      float64       // simulated seconds per wall-clock second
	Seed           uint64
	Progress       time.Duration // how often to print the progress line
	Live           bool          // redraw one line (a terminal) instead of printing lines

	// Replay of recorded files instead of the synthetic city.
	PingsFile, SearchesFile string
	SpeedSet                bool // -speed was given: pace the replay
}

func (c *config) check() error {
	switch {
	case c.Drivers < 1 || c.Drivers > 200_000:
		return errors.New("-drivers out of range 1..200000")
	case c.Duration <= 0 || c.Duration > 24*time.Hour:
		return errors.New("-duration out of range (0, 24h]")
	case c.Interval < 100*time.Millisecond || c.Interval > time.Hour:
		return errors.New("-interval out of range 100ms..1h")
	case !(c.SearchesPerSec >= 0 && c.SearchesPerSec <= 100_000):
		return errors.New("-searches out of range 0..100000 per second")
	case !(c.TimeScale >= 0.1 && c.TimeScale <= 1000):
		return errors.New("-speed out of range 0.1..1000")
	case c.Key == "":
		return errors.New("-key is empty")
	}
	return nil
}

// summary is what a run did and what the server counted meanwhile.
type summary struct {
	Pings, Searches, Errors int64
	Start, End              shardInfo
}

// tick is how often the simulator wakes to send what is due.
const tick = 100 * time.Millisecond

// run drives the server: every driver pings (GEOADD) every Interval of
// simulated time from wherever the metro's streets took it, riders search
// (GEOSEARCH ... BYRADIUS ... ASC COUNT 10) where people are, and once
// per Progress the server's INFO shards figures are printed.
func run(ctx context.Context, cfg config, out io.Writer) (*summary, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	addr, err := loopbackAddr(cfg.Addr)
	if err != nil {
		return nil, err
	}
	var conns [3]*conn // writes, searches, INFO
	for i := range conns {
		if conns[i], err = dial(addr, 5*time.Second); err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", addr, err)
		}
		defer conns[i].Close()
	}
	writes, reads, infoc := conns[0], conns[1], conns[2]
	info := func() (shardInfo, error) {
		v, err := infoc.do("INFO", "shards")
		if err != nil {
			return shardInfo{}, fmt.Errorf("INFO shards: %w", err)
		}
		s, ok := v.(string)
		if !ok {
			return shardInfo{}, fmt.Errorf("INFO shards: unexpected reply %v", v)
		}
		return parseInfo(s), nil
	}
	sum := &summary{}
	if sum.Start, err = info(); err != nil {
		return nil, err
	}

	metro := plan.DefaultMetro()
	fleet := metro.NewFleet(cfg.Drivers, cfg.Seed)
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	interval := cfg.Interval.Seconds()
	next := make([]float64, cfg.Drivers) // simulated time of each driver's next ping
	last := make([]float64, cfg.Drivers)
	for i := range next {
		next[i] = interval * rng.Float64()
	}
	prog := newProgress(out, cfg, sum.Start)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	nextReport := start.Add(cfg.Progress)
	searchDebt := 0.0
	simNow := 0.0
	for {
		select {
		case <-ctx.Done():
			return sum, ctx.Err()
		case <-ticker.C:
		}
		now := time.Now()
		simDt := now.Sub(start).Seconds()*cfg.TimeScale - simNow
		simNow += simDt
		n := 0
		for i := range next {
			if next[i] > simNow {
				continue
			}
			lon, lat := fleet.Move(i, next[i]-last[i])
			last[i] = next[i]
			next[i] += interval
			writes.send("GEOADD", cfg.Key, ftoa(lon), ftoa(lat), fleet.ID(i))
			n++
		}
		searchDebt += cfg.SearchesPerSec * simDt
		m := 0
		for ; searchDebt >= 1; searchDebt-- {
			q := fleet.RiderSearch()
			reads.send("GEOSEARCH", cfg.Key, "FROMLONLAT", ftoa(q.Lon), ftoa(q.Lat),
				"BYRADIUS", ftoa(q.RadiusM), "m", "ASC", "COUNT", "10")
			m++
		}
		if err := pipeline(writes, n, sum); err != nil {
			return sum, fmt.Errorf("GEOADD: %w", err)
		}
		if err := pipeline(reads, m, sum); err != nil {
			return sum, fmt.Errorf("GEOSEARCH: %w", err)
		}
		sum.Pings += int64(n)
		sum.Searches += int64(m)
		done := !now.Before(deadline)
		if !now.Before(nextReport) || done {
			in, err := info()
			if err != nil {
				return sum, err
			}
			prog.line(now.Sub(start), simNow, sum, in)
			nextReport = nextReport.Add(cfg.Progress)
			sum.End = in
		}
		if done {
			prog.finish(sum)
			return sum, nil
		}
	}
}

// pipeline flushes n buffered commands and reads their replies, counting
// error replies.
func pipeline(c *conn, n int, sum *summary) error {
	if n == 0 {
		return nil
	}
	if err := c.flush(); err != nil {
		return err
	}
	for ; n > 0; n-- {
		v, err := c.read()
		if err != nil {
			return err
		}
		if e, ok := v.(resp.ReplyError); ok {
			if sum.Errors++; sum.Errors == 1 {
				return fmt.Errorf("server replied %q", string(e))
			}
		}
	}
	return nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// progress prints the live line: rates since the last line, shares since
// the start of the run.
type progress struct {
	out        io.Writer
	cfg        config
	base, prev totals
	prevAt     time.Duration
}

func newProgress(out io.Writer, cfg config, start shardInfo) *progress {
	t := start.totals()
	return &progress{out: out, cfg: cfg, base: t, prev: t}
}

func (p *progress) line(elapsed time.Duration, simNow float64, sum *summary, in shardInfo) {
	t := in.totals()
	dt := (elapsed - p.prevAt).Seconds()
	if dt <= 0 {
		dt = 1
	}
	searches, fan := t.searches-p.base.searches, t.fanOut-p.base.fanOut
	share := 0.0
	if searches > 0 {
		share = 100 * float64(fan) / float64(searches)
	}
	s := fmt.Sprintf("%5.0fs (sim %5.0fs) %d drivers | pings %d/s searches %d/s | handoffs/s %.1f | flaps suppressed %d (%.1f/s) | fan-out %.1f%% of %d searches | degraded %d",
		elapsed.Seconds(), simNow, p.cfg.Drivers,
		int64(float64(t.writes-p.prev.writes)/dt), int64(float64(t.searches-p.prev.searches)/dt),
		float64(t.handoffs-p.prev.handoffs)/dt, t.flaps-p.base.flaps, float64(t.flaps-p.prev.flaps)/dt,
		share, searches, t.degraded-p.base.degraded)
	if p.cfg.Live {
		fmt.Fprintf(p.out, "\r\033[K%s", s)
	} else {
		fmt.Fprintln(p.out, s)
	}
	p.prev, p.prevAt = t, elapsed
}

// finish prints the run's totals and the busiest borders.
func (p *progress) finish(sum *summary) {
	if p.cfg.Live {
		fmt.Fprintln(p.out)
	}
	t := sum.End.totals()
	fmt.Fprintf(p.out, "sent %d pings and %d searches (%d error replies); server: %d handoffs, %d flaps suppressed, %d of %d searches fanned out, %d degraded\n",
		sum.Pings, sum.Searches, sum.Errors, t.handoffs-p.base.handoffs, t.flaps-p.base.flaps,
		t.fanOut-p.base.fanOut, t.searches-p.base.searches, t.degraded-p.base.degraded)
	names := make([]string, 0, len(sum.End.borders))
	for n := range sum.End.borders {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, was := sum.End.borders[n], sum.Start.borders[n]
		fmt.Fprintf(p.out, "  border %s: handoffs %d, flaps suppressed %d, searches %d\n", borderName(n, sum.End.shards),
			b["handoffs"]-was["handoffs"], b["flaps_suppressed"]-was["flaps_suppressed"], b["searches"]-was["searches"])
	}
}
