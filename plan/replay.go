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

// replayCount is the COUNT of every replayed search, as a pickup search
// asks for the nearest ten drivers.
const replayCount = 10

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
	pi, si := 0, 0
	for pi < len(w.Pings) || si < len(w.Searches) {
		if si >= len(w.Searches) || (pi < len(w.Pings) && w.Pings[pi].T <= w.Searches[si].T) {
			p := &w.Pings[pi]
			r.Add(replayKey, p.ID, geo.Encode(p.Lon, p.Lat), router.AddFlags{})
			pi++
			continue
		}
		s := &w.Searches[si]
		q := geo.NewSearch(s.Lon, s.Lat, geo.Shape{Radius: s.RadiusM, Unit: 1})
		r.Search(replayKey, q, replayCount)
		si++
	}
	return newReport(name, r, len(w.Pings), w.Span())
}
