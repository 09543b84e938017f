package plan

import (
	"math"

	"geoshard/geo"
)

// Metro is a synthetic metropolitan area on a square street grid: two
// dense city halves either side of a river that only bridges cross, and a
// park band that only a few roads cross. Lengths are metres in a local
// frame (x east, y north) whose origin is the south-west corner.
type Metro struct {
	OriginLon, OriginLat float64
	Width, Height        float64 // metres
	Block                float64 // street spacing, metres
	// The river is the band RiverX0 < x < RiverX1 over the whole height;
	// the park the band ParkY0 < y < ParkY1 over the whole width.
	RiverX0, RiverX1 float64
	ParkY0, ParkY1   float64
	Bridges          []float64 // y of the streets that cross the river
	ParkRoads        []float64 // x of the streets that cross the park
	Centres          []Centre  // where drivers live and riders search
}

// Centre is one dense district: a Gaussian blob of activity.
type Centre struct {
	X, Y, Sigma, Weight float64
}

// DefaultMetro is the river-and-park metro of the demo: 24 x 26 km, a
// 900 m river at 35% of the width with three bridges, a 2 km park at 68%
// of the height with three roads through it, and four districts, the
// largest of which (downtown, east of the river) spreads over the middle
// of the area, where an equal grid would put its borders.
func DefaultMetro() *Metro {
	return &Metro{
		OriginLon: 4.70, OriginLat: 52.25,
		Width: 24000, Height: 26000, Block: 500,
		RiverX0: 8050, RiverX1: 8950,
		ParkY0: 16800, ParkY1: 18800,
		Bridges:   []float64{4000, 10000, 22500},
		ParkRoads: []float64{3000, 13000, 20000},
		Centres: []Centre{
			{X: 3800, Y: 10000, Sigma: 1700, Weight: 0.8},
			{X: 14500, Y: 10500, Sigma: 2200, Weight: 1.4},
			{X: 4000, Y: 22500, Sigma: 1300, Weight: 0.4},
			{X: 15000, Y: 22500, Sigma: 1500, Weight: 0.6},
		},
	}
}

// mPerDegLat is the length of a degree of latitude on Redis's sphere.
const mPerDegLat = 6372797.560856 * math.Pi / 180

// LonLat converts frame metres to a position.
func (m *Metro) LonLat(x, y float64) (lon, lat float64) {
	lat = m.OriginLat + y/mPerDegLat
	lon = m.OriginLon + x/(mPerDegLat*math.Cos(m.OriginLat*math.Pi/180))
	return lon, lat
}

// Bounds is the metro's rectangle.
func (m *Metro) Bounds() geo.Rect {
	lon0, lat0 := m.LonLat(0, 0)
	lon1, lat1 := m.LonLat(m.Width, m.Height)
	return geo.Rect{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1}
}

func (m *Metro) inRiver(x float64) bool { return x > m.RiverX0 && x < m.RiverX1 }
func (m *Metro) inPark(y float64) bool  { return y > m.ParkY0 && y < m.ParkY1 }

func near(list []float64, v float64) bool {
	for _, w := range list {
		if math.Abs(w-v) < 1 {
			return true
		}
	}
	return false
}

// open reports whether a street corner exists at (x, y): on land, on a
// bridge over the river, or on a road through the park.
func (m *Metro) open(x, y float64) bool {
	switch {
	case m.inRiver(x) && m.inPark(y):
		return false
	case m.inRiver(x):
		return near(m.Bridges, y)
	case m.inPark(y):
		return near(m.ParkRoads, x)
	}
	return true
}

// density is the relative activity at (x, y): the districts' blobs, none
// on the water and little in the park.
func (m *Metro) density(x, y float64) float64 {
	if m.inRiver(x) {
		return 0
	}
	d := 0.0
	for _, c := range m.Centres {
		dx, dy := (x-c.X)/c.Sigma, (y-c.Y)/c.Sigma
		d += c.Weight * math.Exp(-(dx*dx+dy*dy)/2)
	}
	if m.inPark(y) {
		d *= 0.05
	}
	return d
}
