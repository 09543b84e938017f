package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

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

// borderName turns INFO's border_<a>_<b> key (a_b) into the a|b that the
// planner and /map print, using the shard names INFO lists: a name may
// itself hold underscores.
func borderName(key string, shards map[string]map[string]int64) string {
	for i := strings.Index(key, "_"); i >= 0; {
		if _, ok := shards[key[:i]]; ok {
			if _, ok := shards[key[i+1:]]; ok {
				return key[:i] + "|" + key[i+1:]
			}
		}
		j := strings.Index(key[i+1:], "_")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return key
}
