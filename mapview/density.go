package mapview

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"geoshard/geo"
	"geoshard/router"
)

// densityTTL is how long one walk over the index serves /map/density.json.
// The walk visits every member copy once (router.Router.CellCounts), so a
// page polling every few seconds costs at most one walk per TTL per step,
// however many pages are open, and nothing on the write path: counters
// kept on every write would tax the server's hottest path for a picture
// that few people look at.
const densityTTL = 5 * time.Second

// maxDensityCells bounds a reply: the densest cells win, the rest are
// counted in Dropped. The page asks for a step that keeps a view well
// under it.
const maxDensityCells = 4000

// Density is what /map/density.json returns.
type Density struct {
	Step    uint       `json:"step"`  // geohash bits per axis
	AgeMs   int64      `json:"ageMs"` // how old the counts are
	Cells   []CellView `json:"cells"`
	Max     int64      `json:"max"`     // the largest count among Cells
	Total   int64      `json:"total"`   // members counted in the view
	Dropped int        `json:"dropped"` // cells left out past maxDensityCells
}

// CellView is one geohash cell: its box and the copies in it, summed
// over shards.
type CellView struct {
	Box   [4]float64 `json:"box"` // minLon, minLat, maxLon, maxLat
	Count int64      `json:"n"`
}

type densityCache struct {
	mu     sync.Mutex
	router *router.Router
	cells  map[uint][]CellView // per step, every non-empty cell
	at     map[uint]time.Time
}

// get returns the cells of the step, walking the index when the cached
// counts are older than densityTTL or belong to another router.
func (c *densityCache) get(r *router.Router, step uint) ([]CellView, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.router != r {
		c.router, c.cells, c.at = r, map[uint][]CellView{}, map[uint]time.Time{}
	}
	if at, ok := c.at[step]; ok && time.Since(at) < densityTTL {
		return c.cells[step], at
	}
	sum := map[uint64]int64{}
	for _, cc := range r.CellCounts(step) {
		sum[cc.Cell] += cc.Count
	}
	cells := make([]CellView, 0, len(sum))
	for cell, n := range sum {
		if box, ok := cellBox(cell, step); ok {
			cells = append(cells, CellView{Box: box, Count: n})
		}
	}
	slices.SortFunc(cells, func(a, b CellView) int { return cmp.Compare(b.Count, a.Count) })
	c.cells[step], c.at[step] = cells, time.Now()
	return cells, c.at[step]
}

// cellBox is the lon/lat box of a geohash cell index at step bits per
// axis (latitude on the even bits, as Redis interleaves them). Indexes
// past the grid (a point on lon 180 overflows into the next bit) have none.
func cellBox(cell uint64, step uint) ([4]float64, bool) {
	if cell>>(2*step) != 0 {
		return [4]float64{}, false
	}
	r := geo.CellRect(cell<<(2*(geo.Step-step)), geo.Step-step)
	return [4]float64{r.MinLon, r.MinLat, r.MaxLon, r.MaxLat}, true
}

// density serves /map/density.json?step=S&bbox=minLon,minLat,maxLon,maxLat.
func (h *handler) density(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	step, err := strconv.ParseUint(q.Get("step"), 10, 8)
	if err != nil || step < 1 || step > geo.Step {
		http.Error(w, "step: want a whole number of bits per axis, 1 to 26", http.StatusBadRequest)
		return
	}
	view := [4]float64{-180, -90, 180, 90}
	if s := q.Get("bbox"); s != "" {
		parts := strings.Split(s, ",")
		ok := len(parts) == 4
		for i := 0; ok && i < 4; i++ {
			view[i], err = strconv.ParseFloat(parts[i], 64)
			ok = err == nil
		}
		if !ok || view[0] > view[2] || view[1] > view[3] {
			http.Error(w, "bbox: want minLon,minLat,maxLon,maxLat", http.StatusBadRequest)
			return
		}
	}
	cells, at := h.cells.get(h.router(), uint(step))
	d := &Density{Step: uint(step), AgeMs: time.Since(at).Milliseconds(), Cells: []CellView{}}
	for _, c := range cells {
		if c.Box[2] < view[0] || c.Box[0] > view[2] || c.Box[3] < view[1] || c.Box[1] > view[3] {
			continue
		}
		if len(d.Cells) == maxDensityCells {
			d.Dropped++
			continue
		}
		d.Cells = append(d.Cells, c)
		d.Max = max(d.Max, c.Count)
		d.Total += c.Count
	}
	writeJSON(w, d)
}
