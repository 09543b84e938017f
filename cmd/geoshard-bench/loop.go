package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// roundPlan is one target's share of one phase: run for duration and/or
// until requests are answered, whichever comes first (0 means no bound).
type roundPlan struct {
	phase    phaseSpec
	phaseIdx int
	round    int
	duration time.Duration
	requests int
}

// runClosedRound drives every connection of t in a closed loop: each sends
// one request, waits for its reply, and sends the next. The number of
// requests in flight is the number of connections, as in a dispatch backend
// with a fixed pool, so a slow server gets fewer requests, not a queue.
func runClosedRound(ctx context.Context, cfg *config, w *workload, t *target, plan roundPlan) round {
	var (
		issued atomic.Int64
		wg     sync.WaitGroup
		total  = newConnStats()
		mu     sync.Mutex
	)
	start := time.Now()
	var deadline time.Time
	if plan.duration > 0 {
		deadline = start.Add(plan.duration)
	}
	for i := range t.clients {
		wg.Go(func() {
			st := closedLoop(ctx, cfg, w, t, plan, i, deadline, &issued)
			mu.Lock()
			total.add(st)
			mu.Unlock()
		})
	}
	wg.Wait()
	return round{connStats: total, elapsed: time.Since(start)}
}

// closedLoop is connection i's loop. Its random stream depends only on the
// seed, phase, round and i, so two targets see the same requests in order.
func closedLoop(ctx context.Context, cfg *config, w *workload, t *target, plan roundPlan, i int, deadline time.Time, issued *atomic.Int64) *connStats {
	st := newConnStats()
	rng := newRand(cfg.seed, streamConn, uint64(plan.phaseIdx)<<16|uint64(plan.round), uint64(i))
	f := t.fleet
	conns := len(t.clients)
	owned := (f.size() - i + conns - 1) / conns // drivers i, i+conns, i+2*conns, ...
	done := ctx.Done()
	c := t.clients[i]
	for {
		if plan.requests > 0 && issued.Add(1) > int64(plan.requests) {
			return st
		}
		select {
		case <-done:
			return st
		default:
		}
		kind := plan.phase.kind
		if kind == phaseMix {
			kind = phaseKNN
			if rng.Float64() < cfg.mixUpdate {
				kind = phaseUpdate
			}
		}
		buf := c.buf()
		switch kind {
		case phaseUpdate:
			d := i + conns*rng.IntN(owned)
			f.lon[d], f.lat[d] = w.move(rng, f.lon[d], f.lat[d])
			buf = appendGeoadd(buf, cfg.key, f.lon[d], f.lat[d], d)
		case phaseKNN:
			lon, lat := w.point(rng)
			buf = appendKNN(buf, cfg.key, lon, lat, plan.phase.radiusKm, cfg.count)
		case phaseWide:
			lon, lat := w.point(rng)
			buf = appendWide(buf, cfg.key, lon, lat, plan.phase.radiusKm)
		}
		now := time.Now()
		if !deadline.IsZero() && !now.Before(deadline) {
			return st
		}
		rep, err := c.do(buf)
		elapsed := time.Since(now)
		if err != nil {
			st.fail(err.Error())
			if c = reconnect(ctx, cfg, t, i, st); c == nil {
				return st
			}
			continue
		}
		if rep.isError() {
			st.fail(rep.str)
			continue
		}
		st.hist.record(elapsed)
		st.ops++
		if kind != phaseUpdate {
			st.searches++
			st.results += uint64(max(rep.n, 0))
		}
	}
}

// reconnect replaces connection i after a network error, so one dropped
// connection costs one error, not the rest of the run. It returns nil when
// the server cannot be reached again, which ends that connection's loop.
func reconnect(ctx context.Context, cfg *config, t *target, i int, st *connStats) *client {
	t.clients[i].close()
	c, err := dial(ctx, t.addr, cfg.password, cfg.timeout)
	if err != nil {
		st.fail(err.Error())
		return nil
	}
	t.clients[i] = c
	return c
}

// appendGeoadd: GEOADD key lon lat driver:<d>, one driver's ping.
func appendGeoadd(b []byte, key string, lon, lat float64, d int) []byte {
	b = appendArrayHeader(b, 5)
	b = appendBulk(b, "GEOADD")
	b = appendBulk(b, key)
	b = appendBulkCoord(b, lon)
	b = appendBulkCoord(b, lat)
	return appendBulkMember(b, d)
}

// appendKNN: GEOSEARCH key FROMLONLAT lon lat BYRADIUS r km ASC COUNT k
// WITHDIST, the nearest-drivers query of a dispatch backend.
func appendKNN(b []byte, key string, lon, lat, radiusKm float64, count int) []byte {
	b = appendArrayHeader(b, 12)
	b = appendBulk(b, "GEOSEARCH")
	b = appendBulk(b, key)
	b = appendBulk(b, "FROMLONLAT")
	b = appendBulkCoord(b, lon)
	b = appendBulkCoord(b, lat)
	b = appendBulk(b, "BYRADIUS")
	b = appendBulkFloat(b, radiusKm)
	b = appendBulk(b, "km")
	b = appendBulk(b, "ASC")
	b = appendBulk(b, "COUNT")
	b = appendBulkInt(b, count)
	return appendBulk(b, "WITHDIST")
}

// appendWide: GEOSEARCH key FROMLONLAT lon lat BYRADIUS r km, every member
// in the circle, unsorted: thousands per reply in a city centre.
func appendWide(b []byte, key string, lon, lat, radiusKm float64) []byte {
	b = appendArrayHeader(b, 8)
	b = appendBulk(b, "GEOSEARCH")
	b = appendBulk(b, key)
	b = appendBulk(b, "FROMLONLAT")
	b = appendBulkCoord(b, lon)
	b = appendBulkCoord(b, lat)
	b = appendBulk(b, "BYRADIUS")
	b = appendBulkFloat(b, radiusKm)
	return appendBulk(b, "km")
}

// commandText shows a phase's command in the report, so readers know
// exactly what was measured.
func commandText(cfg *config, ph phaseSpec) string {
	r := func(km float64) string { return formatFloat(km) + " km" }
	switch ph.kind {
	case phaseLoad:
		return "GEOADD " + cfg.key + " lon lat member ... (" + itoa(cfg.loadBatch) + " per command, " + itoa(cfg.loadPipeline) + " pipelined, " + itoa(cfg.loadConns) + " conns)"
	case phaseUpdate:
		return "GEOADD " + cfg.key + " lon lat driver:N (a move of 2-50 m)"
	case phaseKNN:
		return "GEOSEARCH " + cfg.key + " FROMLONLAT lon lat BYRADIUS " + r(ph.radiusKm) + " ASC COUNT " + itoa(cfg.count) + " WITHDIST"
	case phaseWide:
		return "GEOSEARCH " + cfg.key + " FROMLONLAT lon lat BYRADIUS " + r(ph.radiusKm)
	case phaseMix:
		return formatFloat(cfg.mixUpdate*100) + "% update, rest knn at " + r(ph.radiusKm)
	case phaseIdle:
		return "no requests for " + ph.idle.String() + " (RSS at its end)"
	}
	return ph.name
}
