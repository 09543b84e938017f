package main

import (
	"math"
	"math/rand/v2"
)

// metro is one Gaussian cluster of drivers around a city centre.
type metro struct {
	name    string
	lon     float64
	lat     float64
	weight  float64 // relative share of the clustered drivers
	sigmaKm float64 // standard deviation of the distance from the centre, per axis
}

// region bounds every generated point: the Netherlands and Belgium. The
// background share is spread uniformly over it, so some searches land where
// there is almost nobody, as real pickups do.
type region struct {
	minLon, minLat, maxLon, maxLat float64
}

func (r region) contains(lon, lat float64) bool {
	return lon >= r.minLon && lon <= r.maxLon && lat >= r.minLat && lat <= r.maxLat
}

// defaultRegion and defaultMetros give a Dutch/Belgian metro layout: dense
// cores a few km wide, where Redis's radius search must collect and sort every
// candidate, and cities far enough apart that a region map can split them.
var defaultRegion = region{minLon: 2.55, minLat: 49.50, maxLon: 7.20, maxLat: 53.55}

func defaultMetros() []metro {
	return []metro{
		{"Amsterdam", 4.9041, 52.3676, 0.20, 5},
		{"Rotterdam", 4.4777, 51.9244, 0.14, 5},
		{"The Hague", 4.3007, 52.0705, 0.10, 4},
		{"Utrecht", 5.1214, 52.0907, 0.08, 4},
		{"Eindhoven", 5.4697, 51.4416, 0.06, 4},
		{"Groningen", 6.5665, 53.2194, 0.04, 3},
		{"Antwerp", 4.4025, 51.2194, 0.10, 5},
		{"Brussels", 4.3517, 50.8503, 0.16, 6},
		{"Ghent", 3.7174, 51.0543, 0.05, 3},
		{"Liege", 5.5797, 50.6326, 0.05, 4},
	}
}

const kmPerDegLat = 111.32

// workload draws positions from the metro mixture. It holds no random state
// itself: every caller passes its own generator, so concurrent connections
// never share one and every stream is reproducible from the seed.
type workload struct {
	region     region
	metros     []metro
	cumWeight  []float64 // cumulative, normalised to end at 1
	background float64   // share of points drawn uniformly over the region
}

func newWorkload(background float64) *workload {
	w := &workload{region: defaultRegion, metros: defaultMetros(), background: background}
	total := 0.0
	for _, m := range w.metros {
		total += m.weight
	}
	acc := 0.0
	for _, m := range w.metros {
		acc += m.weight / total
		w.cumWeight = append(w.cumWeight, acc)
	}
	w.cumWeight[len(w.cumWeight)-1] = 1
	return w
}

// point draws one position: a driver's home or a pickup, both from the same
// distribution, so searches go where the drivers are.
func (w *workload) point(rng *rand.Rand) (lon, lat float64) {
	if rng.Float64() < w.background {
		return w.uniform(rng)
	}
	u := rng.Float64()
	m := w.metros[len(w.metros)-1]
	for i, c := range w.cumWeight {
		if u < c {
			m = w.metros[i]
			break
		}
	}
	// A Gaussian tail can leave the region; redraw a bounded number of
	// times, then fall back to the centre, which is always inside.
	for range 8 {
		dy := rng.NormFloat64() * m.sigmaKm
		dx := rng.NormFloat64() * m.sigmaKm
		lat = m.lat + dy/kmPerDegLat
		lon = m.lon + dx/(kmPerDegLat*math.Cos(m.lat*math.Pi/180))
		if w.region.contains(lon, lat) {
			return lon, lat
		}
	}
	return m.lon, m.lat
}

func (w *workload) uniform(rng *rand.Rand) (lon, lat float64) {
	r := w.region
	return r.minLon + rng.Float64()*(r.maxLon-r.minLon), r.minLat + rng.Float64()*(r.maxLat-r.minLat)
}

// move returns the position after a small move: a ping a few seconds after
// the last one, 2 to 50 metres in any direction. Moves that would leave the
// region are reflected back by staying put.
func (w *workload) move(rng *rand.Rand, lon, lat float64) (float64, float64) {
	dist := 2 + rng.Float64()*48 // metres
	bearing := rng.Float64() * 2 * math.Pi
	nlat := lat + dist*math.Cos(bearing)/(kmPerDegLat*1000)
	nlon := lon + dist*math.Sin(bearing)/(kmPerDegLat*1000*math.Cos(lat*math.Pi/180))
	if !w.region.contains(nlon, nlat) {
		return lon, lat
	}
	return nlon, nlat
}

// fleet is the current position of every driver as the tool believes the
// target holds it. Driver i is only ever moved by connection i%conns, so
// connections update disjoint parts without locks.
type fleet struct {
	lon []float64
	lat []float64
}

// newFleet places n drivers deterministically from seed.
func newFleet(w *workload, n int, seed uint64) *fleet {
	rng := newRand(seed, streamFleet, 0, 0)
	f := &fleet{lon: make([]float64, n), lat: make([]float64, n)}
	for i := range n {
		f.lon[i], f.lat[i] = w.point(rng)
	}
	return f
}

func (f *fleet) clone() *fleet {
	return &fleet{lon: append([]float64(nil), f.lon...), lat: append([]float64(nil), f.lat...)}
}

func (f *fleet) size() int { return len(f.lon) }

// Stream identifiers keep the random sequences of different uses apart.
const (
	streamFleet uint64 = iota + 1
	streamConn
)

// newRand derives an independent generator for one use: the fleet, or one
// connection in one round of one phase. Two targets given the same phase,
// round and connection get the same request sequence.
func newRand(seed, stream, a, b uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, mix64(stream<<48^a<<24^b)))
}

// mix64 is SplitMix64's finaliser: neighbouring inputs give unrelated streams.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
