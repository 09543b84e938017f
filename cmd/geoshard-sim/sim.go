package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
	writes, reads, info := conns[0], conns[1], infoReader(conns[2])
	sum := &summary{}
	if sum.Start, err = info(); err != nil {
		return nil, err
	}
	traffic := newCity(cfg)
	prog := newProgress(out, cfg, sum.Start)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	nextReport := start.Add(cfg.Progress)
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
		if err := traffic.step(writes, reads, simNow, simDt, sum); err != nil {
			return sum, err
		}
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

// city is the synthetic traffic: each driver's next ping in simulated
// time and the riders' searches owed, sent as they fall due.
type city struct {
	key        string
	fleet      *plan.Fleet
	interval   float64   // seconds between a driver's pings, simulated
	next, last []float64 // per driver: simulated time of its next and last ping
	perSec     float64   // rider searches per simulated second
	debt       float64   // searches due but not yet sent
}

func newCity(cfg config) *city {
	fleet := plan.DefaultMetro().NewFleet(cfg.Drivers, cfg.Seed)
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	c := &city{key: cfg.Key, fleet: fleet, interval: cfg.Interval.Seconds(),
		next: make([]float64, cfg.Drivers), last: make([]float64, cfg.Drivers),
		perSec: cfg.SearchesPerSec}
	for i := range c.next {
		c.next[i] = c.interval * rng.Float64() // spread the first pings over one interval
	}
	return c
}

// step sends the pings and searches due by simNow (simDt after the last
// step), one pipeline each, and counts them in sum.
func (c *city) step(writes, reads *conn, simNow, simDt float64, sum *summary) error {
	n := 0
	for i := range c.next {
		if c.next[i] > simNow {
			continue
		}
		lon, lat := c.fleet.Move(i, c.next[i]-c.last[i])
		c.last[i] = c.next[i]
		c.next[i] += c.interval
		writes.send("GEOADD", c.key, ftoa(lon), ftoa(lat), c.fleet.ID(i))
		n++
	}
	c.debt += c.perSec * simDt
	m := 0
	for ; c.debt >= 1; c.debt-- {
		q := c.fleet.RiderSearch()
		reads.send("GEOSEARCH", c.key, "FROMLONLAT", ftoa(q.Lon), ftoa(q.Lat),
			"BYRADIUS", ftoa(q.RadiusM), "m", "ASC", "COUNT", "10")
		m++
	}
	if err := pipeline(writes, n, sum); err != nil {
		return fmt.Errorf("GEOADD: %w", err)
	}
	if err := pipeline(reads, m, sum); err != nil {
		return fmt.Errorf("GEOSEARCH: %w", err)
	}
	sum.Pings += int64(n)
	sum.Searches += int64(m)
	return nil
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
