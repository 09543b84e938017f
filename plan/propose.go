package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"geoshard/geo"
	"geoshard/shard"
)

// ProposeConfig steers Propose. Zero fields take the defaults noted.
type ProposeConfig struct {
	Shards int      // area shards wanted (the catch-all comes on top)
	Bounds geo.Rect // the area to split; zero: the workload's extent, padded
	CellM  float64  // density grid cell, metres; 250
	Margin float64  // hysteresis margin of the map, metres; 200
	// Tolerance is how far from its fair share of pings each side of a cut
	// may be, as a fraction of that share; 0.5 when 0.
	Tolerance float64
	// PingWeight weighs pings near a cut (future handoffs and flaps)
	// against searches crossing it (fan-out); both count as shares of
	// their totals. 1 when 0.
	PingWeight float64
	// Shape is "rect" (or ""): rectangles from the bisection; or
	// "follow": the rectangles' borders then move cell by cell into the
	// quietest ground nearby (follow.go), giving rectilinear polygons.
	Shape string
}

// maxProposeShards keeps the grid search small and the map readable.
const maxProposeShards = 256

// maxGridCells bounds the density grid whatever the area and cell size.
const maxGridCells = 4096

// Limits of the options Propose accepts; outside them a map is either
// meaningless (a tolerance of 1 or more lets a side hold nothing, which
// puts every driver in one shard) or not a city-scale map any more.
const (
	minCellM  = 10
	maxCellM  = 100_000
	maxMargin = 50_000
)

// Check refuses options that cannot give a sensible map, before any work.
func (cfg *ProposeConfig) Check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case cfg.Shards < 1 || cfg.Shards > maxProposeShards:
		return fmt.Errorf("propose: shards %d out of range 1..%d", cfg.Shards, maxProposeShards)
	case !finite(cfg.CellM) || cfg.CellM < 0 || (cfg.CellM > 0 && cfg.CellM < minCellM) || cfg.CellM > maxCellM:
		return fmt.Errorf("propose: cell %v m out of range %d..%d", cfg.CellM, minCellM, maxCellM)
	case !finite(cfg.Margin) || cfg.Margin < 0 || cfg.Margin > maxMargin:
		return fmt.Errorf("propose: margin %v m out of range 0..%d", cfg.Margin, maxMargin)
	case !finite(cfg.Tolerance) || cfg.Tolerance < 0 || cfg.Tolerance >= 1:
		return fmt.Errorf("propose: tolerance %v out of range (0, 1): at 1 or more a side of a cut may hold no drivers at all", cfg.Tolerance)
	case !finite(cfg.PingWeight) || cfg.PingWeight < 0:
		return fmt.Errorf("propose: ping weight %v is not a number >= 0", cfg.PingWeight)
	case cfg.Shape != "" && cfg.Shape != "rect" && cfg.Shape != "follow":
		return fmt.Errorf("propose: shape %q: want rect or follow", cfg.Shape)
	}
	return nil
}

// Propose splits an area into cfg.Shards rectangles by recursive
// bisection of a density grid of the workload: each cut runs along the
// grid line that the fewest searches would cross (their radius plus the
// margin reaching over it) and the fewest pings lie near (within the
// margin), among the lines that leave each side close to its fair share
// of pings. Dense clusters thus stay whole and borders follow empty
// ground. It returns the map as GeoJSON that shard.LoadMap reads, and
// the map loaded from it; what lies outside the area falls to the
// catch-all.
func Propose(w *Workload, cfg ProposeConfig) (*shard.Map, []byte, error) {
	g, leaves, err := proposeLeaves(w, cfg)
	if err != nil {
		return nil, nil, err
	}
	data := g.geoJSON(leaves, g.cfg.Margin)
	if cfg.Shape == "follow" {
		owner := g.cellOwners(leaves)
		g.follow(owner, leaves)
		if data, err = g.cellsGeoJSON(owner, len(leaves), g.cfg.Margin); err != nil {
			return nil, nil, fmt.Errorf("propose: %w", err)
		}
	}
	m, err := shard.LoadMap(data)
	if err != nil {
		return nil, nil, fmt.Errorf("propose: the proposed map does not load: %w", err)
	}
	return m, data, nil
}

// proposeLeaves checks the options, fills in defaults and bisects the
// density grid into cfg.Shards blocks.
func proposeLeaves(w *Workload, cfg ProposeConfig) (*grid, []cellRect, error) {
	if err := cfg.Check(); err != nil {
		return nil, nil, err
	}
	if len(w.Pings) == 0 && len(w.Searches) == 0 {
		return nil, nil, errors.New("propose: empty workload")
	}
	if cfg.CellM <= 0 {
		cfg.CellM = 250
	}
	if cfg.Margin <= 0 {
		cfg.Margin = 200
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = 0.5
	}
	if cfg.PingWeight <= 0 {
		cfg.PingWeight = 1
	}
	if cfg.Bounds == (geo.Rect{}) {
		cfg.Bounds = workloadBounds(w, cfg.Margin)
	}
	g, err := newGrid(w, cfg)
	if err != nil {
		return nil, nil, err
	}
	var leaves []cellRect
	g.bisect(cellRect{0, 0, g.nx, g.ny}, cfg.Shards, &leaves)
	return g, leaves, nil
}

// cellRect is a block of grid cells [i0, i1) x [j0, j1).
type cellRect struct{ i0, j0, i1, j1 int }

// grid holds the workload binned into cells, plus what each search and
// ping needs to cost a cut.
type grid struct {
	nx, ny   int
	xs, ys   []float64 // cell edges: nx+1 longitudes, ny+1 latitudes
	mx, my   float64   // metres per degree of longitude and latitude
	cfg      ProposeConfig
	pings    []gpoint // inside the bounds
	searches []gpoint
	nPings   float64 // totals, for weighing
	nSearch  float64
}

// gpoint is a ping or search centre in cell coordinates, with the reach
// (metres) within which a border line costs something.
type gpoint struct {
	i, j     int
	lon, lat float64
	reach    float64
}

func newGrid(w *Workload, cfg ProposeConfig) (*grid, error) {
	b := cfg.Bounds
	if !(b.MinLon < b.MaxLon && b.MinLat < b.MaxLat) || !geo.Valid(b.MinLon, b.MinLat) || !geo.Valid(b.MaxLon, b.MaxLat) {
		return nil, fmt.Errorf("propose: invalid bounds %+v", b)
	}
	midLat := (b.MinLat + b.MaxLat) / 2
	g := &grid{cfg: cfg, my: mPerDegLat, mx: mPerDegLat * math.Cos(midLat*math.Pi/180)}
	wM, hM := (b.MaxLon-b.MinLon)*g.mx, (b.MaxLat-b.MinLat)*g.my
	cell := cfg.CellM
	// Coarsen the grid rather than let a large area make it huge.
	if c := math.Sqrt(wM * hM / maxGridCells); c > cell {
		cell = c
	}
	g.nx = min(max(int(math.Ceil(wM/cell)), 1), maxGridCells)
	g.ny = min(max(int(math.Ceil(hM/cell)), 1), maxGridCells)
	if g.nx*g.ny < cfg.Shards {
		return nil, fmt.Errorf("propose: area too small for %d shards at %g m cells", cfg.Shards, cell)
	}
	g.xs = make([]float64, g.nx+1)
	for i := range g.xs {
		g.xs[i] = b.MinLon + (b.MaxLon-b.MinLon)*float64(i)/float64(g.nx)
	}
	g.xs[g.nx] = b.MaxLon
	g.ys = make([]float64, g.ny+1)
	for j := range g.ys {
		g.ys[j] = b.MinLat + (b.MaxLat-b.MinLat)*float64(j)/float64(g.ny)
	}
	g.ys[g.ny] = b.MaxLat
	for _, p := range w.Pings {
		if i, j, ok := g.cellOf(p.Lon, p.Lat); ok {
			g.pings = append(g.pings, gpoint{i: i, j: j, lon: p.Lon, lat: p.Lat, reach: cfg.Margin})
		}
	}
	for _, s := range w.Searches {
		if i, j, ok := g.cellOf(s.Lon, s.Lat); ok {
			g.searches = append(g.searches, gpoint{i: i, j: j, lon: s.Lon, lat: s.Lat, reach: s.RadiusM + cfg.Margin})
		}
	}
	g.nPings, g.nSearch = float64(len(g.pings)), float64(len(g.searches))
	return g, nil
}

func (g *grid) cellOf(lon, lat float64) (i, j int, ok bool) {
	b := g.cfg.Bounds
	if !b.Contains(lon, lat) {
		return 0, 0, false
	}
	i = min(int((lon-b.MinLon)/(b.MaxLon-b.MinLon)*float64(g.nx)), g.nx-1)
	j = min(int((lat-b.MinLat)/(b.MaxLat-b.MinLat)*float64(g.ny)), g.ny-1)
	return i, j, true
}

func (r cellRect) has(p gpoint) bool { return p.i >= r.i0 && p.i < r.i1 && p.j >= r.j0 && p.j < r.j1 }

// bisect splits r into k leaves.
func (g *grid) bisect(r cellRect, k int, out *[]cellRect) {
	if k <= 1 || (r.i1-r.i0 < 2 && r.j1-r.j0 < 2) {
		*out = append(*out, r)
		return
	}
	best := g.bestCut(r, k)
	a, b := r, r
	if best.vertical {
		a.i1, b.i0 = best.at, best.at
	} else {
		a.j1, b.j0 = best.at, best.at
	}
	g.bisect(a, best.kLow, out)
	g.bisect(b, k-best.kLow, out)
}

// cut is a candidate line: column or row boundary `at`, with kLow shards
// going to the low (west or south) side.
type cut struct {
	vertical  bool
	at, kLow  int
	cost, off float64 // off: distance from the fair share, for ties and fallbacks
	fair      bool
}

func (c cut) better(o cut) bool {
	if c.fair != o.fair {
		return c.fair
	}
	if !c.fair {
		return c.off < o.off
	}
	if c.cost != o.cost {
		return c.cost < o.cost
	}
	return c.off < o.off
}

func (g *grid) bestCut(r cellRect, k int) cut {
	best := cut{off: math.Inf(1)}
	for _, vertical := range []bool{true, false} {
		lo, hi := r.i0, r.i1
		if !vertical {
			lo, hi = r.j0, r.j1
		}
		if hi-lo < 2 {
			continue
		}
		cost, weight := g.lineCosts(r, vertical, lo, hi)
		total := 0.0
		for _, w := range weight {
			total += w
		}
		// A cut's low side holds the weight of the lines before it.
		lowW := 0.0
		for at := lo + 1; at < hi; at++ {
			lowW += weight[at-1-lo]
			for _, kLow := range lowShares(k) {
				share := float64(kLow) / float64(k)
				got := share
				if total > 0 {
					got = lowW / total
				} else {
					got = float64(at-lo) / float64(hi-lo)
				}
				off := math.Abs(got-share) / math.Min(share, 1-share)
				c := cut{vertical: vertical, at: at, kLow: kLow, cost: cost[at-lo], off: off, fair: off <= g.cfg.Tolerance}
				if c.better(best) {
					best = c
				}
			}
		}
	}
	return best
}

// lowShares lists how k shards may split: evenly, and for odd k either way.
func lowShares(k int) []int {
	if k%2 == 0 {
		return []int{k / 2}
	}
	return []int{k / 2, k - k/2}
}

// lineCosts returns, for the grid lines lo..hi across r (vertical lines are
// column boundaries), what a border there would cost, and the ping weight
// of each column (or row) of cells of r.
func (g *grid) lineCosts(r cellRect, vertical bool, lo, hi int) (cost, weight []float64) {
	cost = make([]float64, hi-lo+1)
	weight = make([]float64, hi-lo)
	diff := make([]float64, hi-lo+2)
	edges, scale := g.xs, g.mx
	if !vertical {
		edges, scale = g.ys, g.my
	}
	add := func(p gpoint, w float64) {
		v := p.lon
		if !vertical {
			v = p.lat
		}
		d := p.reach / scale
		// Lines with edges[at] within [v-d, v+d] are reached.
		a := lowerBound(edges, v-d)
		b := lowerBound(edges, v+d+1e-12) - 1
		a, b = max(a, lo), min(b, hi)
		if a <= b {
			diff[a-lo] += w
			diff[b-lo+1] -= w
		}
	}
	for _, s := range g.searches {
		if r.has(s) {
			add(s, 1/g.nSearch)
		}
	}
	for _, p := range g.pings {
		if r.has(p) {
			add(p, g.cfg.PingWeight/g.nPings)
			if vertical {
				weight[p.i-lo]++
			} else {
				weight[p.j-lo]++
			}
		}
	}
	if g.nPings == 0 {
		// No pings: balance by searches instead.
		for _, s := range g.searches {
			if r.has(s) {
				if vertical {
					weight[s.i-lo]++
				} else {
					weight[s.j-lo]++
				}
			}
		}
	}
	run := 0.0
	for i := range cost {
		run += diff[i]
		cost[i] = run
	}
	return cost, weight
}

// lowerBound is the first index of sorted xs with xs[i] >= v.
func lowerBound(xs []float64, v float64) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		mid := (lo + hi) / 2
		if xs[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// geoJSON writes the leaves as a region map. Leaves take their corners
// from the shared edge arrays, so neighbours meet exactly.
func (g *grid) geoJSON(leaves []cellRect, margin float64) []byte {
	type feature struct {
		Type       string            `json:"type"`
		Properties map[string]string `json:"properties"`
		Geometry   struct {
			Type        string         `json:"type"`
			Coordinates [][][2]float64 `json:"coordinates"`
		} `json:"geometry"`
	}
	fc := struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Features   []feature      `json:"features"`
	}{Type: "FeatureCollection", Properties: map[string]any{"margin": margin}}
	for n, l := range leaves {
		x0, x1, y0, y1 := g.xs[l.i0], g.xs[l.i1], g.ys[l.j0], g.ys[l.j1]
		var f feature
		f.Type = "Feature"
		f.Properties = map[string]string{"shard": fmt.Sprintf("area-%d", n+1)}
		f.Geometry.Type = "Polygon"
		f.Geometry.Coordinates = [][][2]float64{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}}
		fc.Features = append(fc.Features, f)
	}
	out, err := json.MarshalIndent(fc, "", " ")
	if err != nil {
		// Only finite numbers and strings go in.
		panic(fmt.Sprintf("plan: encoding a map: %v", err))
	}
	return out
}
