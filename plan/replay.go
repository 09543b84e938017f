package plan

import (
	"io"
	"log/slog"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// replayKey is the geo key the replay writes to and searches.
var replayKey = shard.Key{Name: "drivers"}

// search runs s as the server runs GEOSEARCH ... ASC [COUNT n]
// (commands.Engine.find): with COUNT, the nearest-first walk, which asks
// the centre's shard first and the others only when they could hold a
// nearer driver, falling back to the full search when it cannot prove its
// answer; without COUNT, the full search of every shard the circle (plus
// the margin) touches. Both count fan-out as the server does because they
// are the server's code.
func search(r *router.Router, s *Search) {
	q := geo.NewSearch(s.Lon, s.Lat, geo.Shape{Radius: s.RadiusM, Unit: 1})
	if n := s.Limit(); n > 0 {
		if _, exact := r.Nearest(replayKey, q, n); exact {
			return
		}
	}
	r.Search(replayKey, q, 0)
}

// Replay plays the workload, in time order (pings before searches at the
// same instant), against a fresh in-process router.Router over the map,
// so placement, hysteresis and handoffs follow the server's own rules,
// and reports the router's counters. Searches that come before the first
// ping find no key and count nowhere, as on the server.
func Replay(name string, m *shard.Map, w *Workload) *Report {
	r := router.New(router.Config{
		Regions: m,
		// Nothing is slow in process; a generous deadline keeps a busy
		// machine from marking searches degraded.
		FanoutTimeout: 10 * time.Second,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	EachEvent(w, func(p *Ping, s *Search) error {
		if p != nil {
			r.Add(replayKey, p.ID, geo.Encode(p.Lon, p.Lat), router.AddFlags{})
		} else {
			search(r, s)
		}
		return nil
	})
	return newReport(name, r, len(w.Pings), w.Span())
}

// EachEvent calls fn for every ping and search in replay order: merged by
// time, pings first at equal times, each list in its own order (the
// readers sort them stably by time). It stops at the first error fn
// returns and returns it. geoshard-sim replays a file against a live
// server in this same order, so both count the same things.
func EachEvent(w *Workload, fn func(*Ping, *Search) error) error {
	pi, si := 0, 0
	for pi < len(w.Pings) || si < len(w.Searches) {
		var err error
		if si >= len(w.Searches) || (pi < len(w.Pings) && w.Pings[pi].T <= w.Searches[si].T) {
			err = fn(&w.Pings[pi], nil)
			pi++
		} else {
			err = fn(nil, &w.Searches[si])
			si++
		}
		if err != nil {
			return err
		}
	}
	return nil
}
