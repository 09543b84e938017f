package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// roads is the metro's street grid as a graph: corners on a lattice, and
// an edge between two neighbouring corners when both exist.
type roads struct {
	m      *Metro
	nx, ny int
	open   []bool
}

func newRoads(m *Metro) *roads {
	g := &roads{m: m, nx: int(m.Width/m.Block) + 1, ny: int(m.Height/m.Block) + 1}
	g.open = make([]bool, g.nx*g.ny)
	for j := 0; j < g.ny; j++ {
		for i := 0; i < g.nx; i++ {
			g.open[j*g.nx+i] = m.open(float64(i)*m.Block, float64(j)*m.Block)
		}
	}
	return g
}

func (g *roads) xy(n int) (x, y float64) {
	return float64(n%g.nx) * g.m.Block, float64(n/g.nx) * g.m.Block
}

// neighbours appends the corners one block from n along a street.
func (g *roads) neighbours(n int, dst []int) []int {
	i, j := n%g.nx, n/g.nx
	try := func(i, j int) {
		if i >= 0 && i < g.nx && j >= 0 && j < g.ny && g.open[j*g.nx+i] {
			dst = append(dst, j*g.nx+i)
		}
	}
	try(i+1, j)
	try(i-1, j)
	try(i, j+1)
	try(i, j-1)
	return dst
}

// nearest returns the open corner closest to (x, y), searching rings of
// growing size (bounded by the grid).
func (g *roads) nearest(x, y float64) int {
	ci := min(max(int(math.Round(x/g.m.Block)), 0), g.nx-1)
	cj := min(max(int(math.Round(y/g.m.Block)), 0), g.ny-1)
	for r := 0; r < max(g.nx, g.ny); r++ {
		best, bestD := -1, math.Inf(1)
		for j := cj - r; j <= cj+r; j++ {
			for i := ci - r; i <= ci+r; i++ {
				if i < 0 || j < 0 || i >= g.nx || j >= g.ny || !g.open[j*g.nx+i] {
					continue
				}
				dx, dy := float64(i)*g.m.Block-x, float64(j)*g.m.Block-y
				if d := dx*dx + dy*dy; d < bestD {
					best, bestD = j*g.nx+i, d
				}
			}
		}
		if best >= 0 {
			return best
		}
	}
	return 0
}

// route returns the corners of a shortest street path from a to b
// (excluding a), or nil when b cannot be reached.
func (g *roads) route(a, b int) []int {
	if a == b {
		return nil
	}
	prev := make([]int32, len(g.open))
	for i := range prev {
		prev[i] = -1
	}
	prev[a] = int32(a)
	queue := []int{a}
	var nb []int
	for len(queue) > 0 && prev[b] < 0 {
		n := queue[0]
		queue = queue[1:]
		for _, v := range g.neighbours(n, nb[:0]) {
			if prev[v] < 0 {
				prev[v] = int32(n)
				queue = append(queue, v)
			}
		}
	}
	if prev[b] < 0 {
		return nil
	}
	var path []int
	for n := b; n != a; n = int(prev[n]) {
		path = append(path, n)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// driver drives from corner to corner along a route to a destination,
// waits there for a fare, and picks the next destination.
type driver struct {
	id     string
	home   int // index into Metro.Centres
	x, y   float64
	speed  float64 // m/s
	path   []int
	wait   float64 // seconds left parked
	corner int     // last corner reached
}

// Fleet is a set of drivers moving on the metro's streets. It is not safe
// for concurrent use.
type Fleet struct {
	m       *Metro
	g       *roads
	rng     *rand.Rand
	drivers []driver
	// Cross is the share of trips that go to another district (crossing
	// the river or the park); the rest stay near the driver's home.
	Cross float64
}

// NewFleet places n drivers at corners near their home districts.
func (m *Metro) NewFleet(n int, seed uint64) *Fleet {
	f := &Fleet{m: m, g: newRoads(m), rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), Cross: 0.15}
	f.drivers = make([]driver, n)
	for i := range f.drivers {
		d := &f.drivers[i]
		d.id = fmt.Sprintf("driver:%d", i)
		d.home = f.pickCentre()
		x, y := f.around(d.home)
		d.corner = f.g.nearest(x, y)
		d.x, d.y = f.g.xy(d.corner)
		d.speed = 7 + 7*f.rng.Float64() // 25..50 km/h in town
		d.wait = 60 * f.rng.Float64()
	}
	return f
}

// Len is the number of drivers.
func (f *Fleet) Len() int { return len(f.drivers) }

// ID is driver i's member name.
func (f *Fleet) ID(i int) string { return f.drivers[i].id }

// pickCentre draws a district by weight.
func (f *Fleet) pickCentre() int {
	total := 0.0
	for _, c := range f.m.Centres {
		total += c.Weight
	}
	r := f.rng.Float64() * total
	for i, c := range f.m.Centres {
		if r -= c.Weight; r < 0 {
			return i
		}
	}
	return len(f.m.Centres) - 1
}

// around draws a point of district c, inside the metro.
func (f *Fleet) around(c int) (x, y float64) {
	ct := f.m.Centres[c]
	x = min(max(ct.X+ct.Sigma*f.rng.NormFloat64(), 0), f.m.Width)
	y = min(max(ct.Y+ct.Sigma*f.rng.NormFloat64(), 0), f.m.Height)
	return x, y
}

// Move advances driver i by dt seconds and returns the position it
// reports: where it is plus a few metres of GPS noise.
func (f *Fleet) Move(i int, dt float64) (lon, lat float64) {
	d := &f.drivers[i]
	// Bounded: every pass consumes time, parks, or plans a trip that
	// has at least one corner.
	for step := 0; dt > 0 && step < 1000; step++ {
		switch {
		case d.wait > 0:
			w := math.Min(d.wait, dt)
			d.wait -= w
			dt -= w
		case len(d.path) == 0:
			c := d.home
			if f.rng.Float64() < f.Cross {
				c = f.pickCentre()
			}
			x, y := f.around(c)
			d.path = f.g.route(d.corner, f.g.nearest(x, y))
			if len(d.path) == 0 {
				d.wait = 10
			}
		default:
			tx, ty := f.g.xy(d.path[0])
			dist := math.Hypot(tx-d.x, ty-d.y)
			if reach := d.speed * dt; reach < dist {
				d.x += (tx - d.x) * reach / dist
				d.y += (ty - d.y) * reach / dist
				dt = 0
				break
			}
			dt -= dist / d.speed
			d.x, d.y, d.corner = tx, ty, d.path[0]
			d.path = d.path[1:]
			if len(d.path) == 0 {
				d.wait = 120 * f.rng.Float64() // waiting for the next fare
			}
		}
	}
	const gpsNoise = 5.0
	return f.m.LonLat(d.x+gpsNoise*f.rng.NormFloat64(), d.y+gpsNoise*f.rng.NormFloat64())
}

// RiderSearch draws a rider's pickup search: a centre where people are
// (by the districts' density, never on the water, seldom in the park)
// and a radius of one to three kilometres.
func (f *Fleet) RiderSearch() Search {
	var x, y float64
	for try := 0; try < 100; try++ {
		x, y = f.around(f.pickCentre())
		if f.m.inRiver(x) || (f.m.inPark(y) && f.rng.Float64() > 0.1) {
			continue
		}
		break
	}
	lon, lat := f.m.LonLat(x, y)
	radii := [...]float64{1000, 1500, 2000, 3000}
	return Search{Lon: lon, Lat: lat, RadiusM: radii[f.rng.IntN(len(radii))]}
}

// SynthConfig sizes a synthetic workload.
type SynthConfig struct {
	Drivers        int
	Duration       float64 // seconds
	PingInterval   float64 // seconds, 4 when 0
	SearchesPerSec float64
	Seed           uint64
}

// Synthesize records a workload on the metro: every driver pings every
// PingInterval seconds (each with its own phase), and riders search at
// SearchesPerSec on average, spread evenly over the duration.
func (m *Metro) Synthesize(cfg SynthConfig) *Workload {
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 4
	}
	f := m.NewFleet(cfg.Drivers, cfg.Seed)
	w := &Workload{}
	phase := make([]float64, f.Len())
	for i := range phase {
		phase[i] = cfg.PingInterval * f.rng.Float64()
	}
	periods := int(cfg.Duration / cfg.PingInterval)
	for k := 0; k < periods; k++ {
		for i := range f.drivers {
			dt := cfg.PingInterval
			if k == 0 {
				dt = phase[i]
			}
			lon, lat := f.Move(i, dt)
			w.Pings = append(w.Pings, Ping{T: phase[i] + float64(k)*cfg.PingInterval, ID: f.ID(i), Lon: lon, Lat: lat})
		}
	}
	n := int(cfg.SearchesPerSec * cfg.Duration)
	for s := 0; s < n; s++ {
		q := f.RiderSearch()
		q.T = cfg.Duration * (float64(s) + 0.5) / float64(n)
		w.Searches = append(w.Searches, q)
	}
	sortWorkload(w)
	return w
}
