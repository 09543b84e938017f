package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// runLoadRound loads drivers [from, to) of t's fleet over cfg.loadConns
// connections. Each connection claims loadPipeline*loadBatch drivers at a
// time, writes that many GEOADDs of loadBatch members in one write, then
// reads the replies: the way a bulk import fills Redis. done counts drivers
// sent, for the progress line.
func runLoadRound(ctx context.Context, cfg *config, t *target, from, to int, done *atomic.Int64) round {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		total = newConnStats()
	)
	next.Store(int64(from))
	start := time.Now()
	for i := range cfg.loadConns {
		wg.Go(func() {
			st := loadWorker(ctx, cfg, t, i, to, &next, done)
			mu.Lock()
			total.add(st)
			mu.Unlock()
		})
	}
	wg.Wait()
	return round{connStats: total, elapsed: time.Since(start)}
}

func loadWorker(ctx context.Context, cfg *config, t *target, i, to int, next, done *atomic.Int64) *connStats {
	st := newConnStats()
	f := t.fleet
	step := int64(cfg.loadBatch * cfg.loadPipeline)
	c := t.clients[i]
	sizes := make([]int, 0, cfg.loadPipeline) // members in each pipelined command
	for ctx.Err() == nil {
		lo := int(next.Add(step) - step)
		if lo >= to {
			return st
		}
		hi := min(lo+int(step), to)
		buf := c.buf()
		sizes = sizes[:0]
		for s := lo; s < hi; s += cfg.loadBatch {
			e := min(s+cfg.loadBatch, hi)
			buf = appendArrayHeader(buf, 2+3*(e-s))
			buf = appendBulk(buf, "GEOADD")
			buf = appendBulk(buf, cfg.key)
			for d := s; d < e; d++ {
				buf = appendBulkCoord(buf, f.lon[d])
				buf = appendBulkCoord(buf, f.lat[d])
				buf = appendBulkMember(buf, d)
			}
			sizes = append(sizes, e-s)
		}
		sent := time.Now()
		if err := c.send(buf); err != nil {
			st.fail(err.Error())
			if c = reconnect(ctx, cfg, t, i, st); c == nil {
				return st
			}
			continue
		}
		for _, n := range sizes {
			rep, err := c.receive(false)
			if err != nil {
				st.fail(err.Error())
				if c = reconnect(ctx, cfg, t, i, st); c == nil {
					return st
				}
				break
			}
			// Each command's latency runs from the pipeline's write to its
			// own reply: what a bulk importer waits for.
			st.hist.record(time.Since(sent))
			if rep.isError() {
				st.fail(rep.str)
				continue
			}
			st.ops += uint64(n)
		}
		done.Add(int64(hi - lo))
	}
	return st
}

// progressLine prints, once a second while a load runs, how far it is, so a
// 1M-driver load does not look hung.
func progressLine(ctx context.Context, w io.Writer, label string, done *atomic.Int64, total int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastAt := done.Load(), time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				n := done.Load()
				rate := float64(n-last) / now.Sub(lastAt).Seconds()
				last, lastAt = n, now
				fmt.Fprintf(w, "  load %s: %d/%d drivers (%.1f%%), %.0f/s\n",
					label, n, total, 100*float64(n)/float64(max(total, 1)), rate)
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
