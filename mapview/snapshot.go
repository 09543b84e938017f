package mapview

import (
	"time"

	"geoshard/plan"
	"geoshard/router"
	"geoshard/shard"
)

// Snapshot is what /map/data.json returns: the map's geometry and the
// router's counters at one instant. Counters are totals since start; the
// page turns successive snapshots into rates.
type Snapshot struct {
	Version  string       `json:"version"`
	Margin   float64      `json:"margin"`
	TimeMs   int64        `json:"timeMs"`
	View     [4]float64   `json:"view"` // minLon, minLat, maxLon, maxLat of the areas
	Shards   []ShardView  `json:"shards"`
	Borders  []BorderView `json:"borders"`
	FanOut   []int64      `json:"fanout"` // searches that asked 1, 2, ... 8+ shards
	Degraded int64        `json:"degraded"`
}

// ShardView is one shard: its polygons ([polygon][ring][point]{lon,lat};
// none for the catch-all), where its name goes, and counters.
type ShardView struct {
	ID          int              `json:"id"`
	Name        string           `json:"name"`
	CatchAll    bool             `json:"catchall"`
	Areas       [][][][2]float64 `json:"areas"`
	Label       *[2]float64      `json:"label,omitempty"`
	Members     int64            `json:"members"`
	Writes      int64            `json:"writes"`
	HandoffsIn  int64            `json:"handoffsIn"`
	HandoffsOut int64            `json:"handoffsOut"`
	Searches    int64            `json:"searches"`
	Degraded    int64            `json:"degraded"`
}

// BorderView is one border: where it runs and its counters. Shards that
// meet only at a corner have no segments but may still have counters (a
// search can reach both).
type BorderView struct {
	A        int             `json:"a"`
	B        int             `json:"b"`
	Name     string          `json:"name"`
	Segments [][2][2]float64 `json:"segments"`
	Handoffs int64           `json:"handoffs"`
	Flaps    int64           `json:"flaps"`
	Searches int64           `json:"searches"`
}

// BorderName is how the map, its downloads and INFO's reader name the
// border between two shards.
func BorderName(m *shard.Map, a, b shard.ID) string { return m.Name(a) + "|" + m.Name(b) }

func (h *handler) snapshot() *Snapshot {
	r := h.router()
	m := r.Regions()
	st := r.Stats()
	members := r.ShardMembers()
	lines, labels := h.geometry(m)
	s := &Snapshot{Version: m.Version(), Margin: m.Margin(), TimeMs: time.Now().UnixMilli(), Degraded: st.Degraded.Load()}
	if b, ok := plan.MapBounds(m); ok {
		s.View = [4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
	}
	for i := range st.Shards {
		c := &st.Shards[i]
		id := shard.ID(i)
		v := ShardView{
			ID: i, Name: m.Name(id), CatchAll: id == m.CatchAll(), Areas: m.Areas(id),
			Writes: c.Writes.Load(), HandoffsIn: c.HandoffsIn.Load(), HandoffsOut: c.HandoffsOut.Load(),
			Searches: c.Searches.Load(), Degraded: c.Degraded.Load(),
		}
		if i < len(members) {
			v.Members = members[i]
		}
		if v.Areas == nil {
			v.Areas = [][][][2]float64{}
		} else if labels[i] != ([2]float64{}) {
			v.Label = &labels[i]
		}
		s.Shards = append(s.Shards, v)
	}
	s.Borders = borderViews(m, st, lines)
	for n := 1; n < len(st.FanOut); n++ {
		s.FanOut = append(s.FanOut, st.FanOut[n].Load())
	}
	return s
}

// borderViews lists every border line of the map, then the borders that
// saw traffic without a line (shards meeting at a corner).
func borderViews(m *shard.Map, st *router.Stats, lines []plan.BorderLine) []BorderView {
	// Only borders that saw traffic have counters; asking Stats for the
	// others would create (empty) ones that INFO then lists.
	traffic := map[router.Border]bool{}
	for _, b := range st.Borders() {
		traffic[b] = true
	}
	fill := func(v *BorderView) {
		if k := (router.Border{A: shard.ID(v.A), B: shard.ID(v.B)}); traffic[k] {
			c := st.Border(k.A, k.B)
			v.Handoffs, v.Flaps, v.Searches = c.Handoffs.Load(), c.FlapsSuppressed.Load(), c.Searches.Load()
			delete(traffic, k)
		}
	}
	var out []BorderView
	for _, l := range lines {
		v := BorderView{A: int(l.A), B: int(l.B), Name: BorderName(m, l.A, l.B), Segments: [][2][2]float64{}}
		for _, seg := range l.Segments {
			v.Segments = append(v.Segments, [2][2]float64{seg.P, seg.Q})
		}
		fill(&v)
		out = append(out, v)
	}
	for _, k := range st.Borders() {
		if traffic[k] {
			v := BorderView{A: int(k.A), B: int(k.B), Name: BorderName(m, k.A, k.B), Segments: [][2][2]float64{}}
			fill(&v)
			out = append(out, v)
		}
	}
	return out
}
