// Package mapview serves a live picture of a router's region map at /map:
// shard areas shaded by driver density, borders coloured by their live
// fan-out and handoff rates, all drawn in the browser from embedded
// assets, with no map tiles and no network beyond the page's own
// endpoints.
//
// Density is members per square kilometre of each shard's area: the
// router's exported API gives member counts per shard (ShardMembers), not
// member positions, so the picture cannot draw a finer density grid.
package mapview

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"geoshard/plan"
	"geoshard/router"
	"geoshard/shard"
)

//go:embed assets/map.html
var pageHTML []byte

//go:embed assets/map.js
var pageJS []byte

// dataMarker is replaced in the page by the first snapshot, so the map
// draws as the page loads, before any request for fresh data.
var dataMarker = []byte("/*INITIAL_DATA*/null")

// Handler serves the map page at /map (and /map/), its script at
// /map/map.js and the live figures at /map/data.json. Mount it for both
// "/map" and "/map/".
func Handler(r *router.Router) http.Handler {
	return Live(func() *router.Router { return r })
}

// Live is Handler for a server whose router can be replaced (a region map
// reloaded): every request draws the router router returns then.
func Live(router func() *router.Router) http.Handler {
	h := &handler{router: router}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /map", h.page)
	mux.HandleFunc("GET /map/{$}", h.page)
	mux.HandleFunc("GET /map/map.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write(pageJS)
	})
	mux.HandleFunc("GET /map/data.json", h.data)
	return mux
}

type handler struct {
	router func() *router.Router

	// Border lines depend only on the map, which is immutable; they are
	// worked out once per map.
	mu    sync.Mutex
	m     *shard.Map
	lines []plan.BorderLine
}

func (h *handler) borderLines(m *shard.Map) []plan.BorderLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m != m {
		h.m, h.lines = m, plan.BorderLines(m)
	}
	return h.lines
}

func (h *handler) page(w http.ResponseWriter, _ *http.Request) {
	data, err := json.Marshal(h.snapshot())
	if err != nil {
		http.Error(w, "encoding the map: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// json.Marshal escapes <, > and &, so the data cannot end the script.
	page := bytes.Replace(pageHTML, dataMarker, data, 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

func (h *handler) data(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(h.snapshot()); err != nil {
		http.Error(w, "encoding the map: "+err.Error(), http.StatusInternalServerError)
	}
}

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
// none for the catch-all) and counters.
type ShardView struct {
	ID          int              `json:"id"`
	Name        string           `json:"name"`
	CatchAll    bool             `json:"catchall"`
	Areas       [][][][2]float64 `json:"areas"`
	Members     int64            `json:"members"`
	Writes      int64            `json:"writes"`
	HandoffsIn  int64            `json:"handoffsIn"`
	HandoffsOut int64            `json:"handoffsOut"`
	Searches    int64            `json:"searches"`
	Degraded    int64            `json:"degraded"`
}

// BorderView is one border: where it runs and its counters.
type BorderView struct {
	A        int             `json:"a"`
	B        int             `json:"b"`
	Name     string          `json:"name"`
	Segments [][2][2]float64 `json:"segments"`
	Handoffs int64           `json:"handoffs"`
	Flaps    int64           `json:"flaps"`
	Searches int64           `json:"searches"`
}

func (h *handler) snapshot() *Snapshot {
	r := h.router()
	m := r.Regions()
	st := r.Stats()
	members := r.ShardMembers()
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
		}
		s.Shards = append(s.Shards, v)
	}
	// Only borders that saw traffic have counters; asking Stats for the
	// others would create (empty) ones that INFO then lists.
	traffic := map[router.Border]bool{}
	for _, b := range st.Borders() {
		traffic[b] = true
	}
	for _, l := range h.borderLines(m) {
		v := BorderView{A: int(l.A), B: int(l.B), Name: m.Name(l.A) + "|" + m.Name(l.B)}
		for _, seg := range l.Segments {
			v.Segments = append(v.Segments, [2][2]float64{seg.P, seg.Q})
		}
		if k := (router.Border{A: l.A, B: l.B}); traffic[k] {
			c := st.Border(l.A, l.B)
			v.Handoffs, v.Flaps, v.Searches = c.Handoffs.Load(), c.FlapsSuppressed.Load(), c.Searches.Load()
		}
		s.Borders = append(s.Borders, v)
	}
	for n := 1; n < len(st.FanOut); n++ {
		s.FanOut = append(s.FanOut, st.FanOut[n].Load())
	}
	return s
}
