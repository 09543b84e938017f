package plan

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"geoshard/geo"
	"geoshard/shard"
)

// DrawOptions shape a picture of a map.
type DrawOptions struct {
	Width int // pixels; 900 when 0
	// Cost colours each border: "fanout" (searches that asked both
	// shards, the default) or "handoffs".
	Cost  string
	Title string
	// Pings, when given, are drawn as a grey density layer over the
	// areas and under the borders, so the picture shows where the borders
	// run through.
	Pings []Ping
	// Max is the cost drawn full red; 0: this map's costliest border.
	// Pictures compared side by side share one Max (MaxCost), so a red
	// border is as costly on each.
	Max float64
}

// MaxCost is the costliest border of any of the reports, the Max that
// puts their pictures on one colour scale.
func MaxCost(metric string, reps ...*Report) float64 {
	most := 0.0
	for _, r := range reps {
		for _, b := range r.Borders {
			c := float64(b.Searches)
			if metric == "handoffs" {
				c = float64(b.Handoffs)
			}
			most = math.Max(most, c)
		}
	}
	return most
}

// densityCell is the side of a density layer cell, in pixels.
const densityCell = 6

// densityGrid bins pings into densityCell-pixel cells of the map part of
// the picture; it returns the counts (row-major), the grid's columns and
// the largest count.
func densityGrid(l *layout, pings []Ping) (counts []int, cols, most int) {
	cols = (l.width + densityCell - 1) / densityCell
	rows := (l.height + densityCell - 1) / densityCell
	counts = make([]int, cols*rows)
	for _, p := range pings {
		x, y := l.xy([2]float64{p.Lon, p.Lat})
		y -= float64(l.top)
		i, j := int(x)/densityCell, int(y)/densityCell
		if x < 0 || y < 0 || i >= cols || j >= rows {
			continue
		}
		counts[j*cols+i]++
		most = max(most, counts[j*cols+i])
	}
	return counts, cols, most
}

// densityAlpha is how dark a cell is drawn: square-root scaled so that
// thin traffic still shows.
func densityAlpha(c, most int) float64 {
	if c == 0 || most == 0 {
		return 0
	}
	return 0.15 + 0.6*math.Sqrt(float64(c)/float64(most))
}

// layout projects lon/lat onto the picture: equirectangular, scaled by
// the cosine of the middle latitude so that distances look right.
type layout struct {
	view          geo.Rect
	scale, cos    float64
	width, height int // the map part
	top           int // where the map part starts
}

func newLayout(m *shard.Map, width int) (*layout, error) {
	if width <= 0 {
		width = 900
	}
	if width < 200 || width > 8000 {
		return nil, fmt.Errorf("picture width %d out of range 200..8000", width)
	}
	b, ok := MapBounds(m)
	if !ok {
		return nil, errors.New("the map has no areas to draw (only the catch-all)")
	}
	padLon, padLat := (b.MaxLon-b.MinLon)*0.03, (b.MaxLat-b.MinLat)*0.03
	b = geo.Rect{MinLon: b.MinLon - padLon, MinLat: b.MinLat - padLat, MaxLon: b.MaxLon + padLon, MaxLat: b.MaxLat + padLat}
	l := &layout{view: b, width: width}
	l.cos = math.Max(math.Cos((b.MinLat+b.MaxLat)/2*math.Pi/180), 0.05)
	l.scale = float64(width) / ((b.MaxLon - b.MinLon) * l.cos)
	l.height = int(math.Ceil((b.MaxLat - b.MinLat) * l.scale))
	if l.height > 4*width {
		return nil, errors.New("the map is too tall to draw")
	}
	l.height = max(l.height, 1)
	return l, nil
}

func (l *layout) xy(p [2]float64) (x, y float64) {
	return (p[0] - l.view.MinLon) * l.cos * l.scale, float64(l.top) + (l.view.MaxLat-p[1])*l.scale
}

// rings projects a polygon's rings.
func (l *layout) rings(poly [][][2]float64) [][][2]float64 {
	out := make([][][2]float64, len(poly))
	for i, ring := range poly {
		for _, p := range ring {
			x, y := l.xy(p)
			out[i] = append(out[i], [2]float64{x, y})
		}
	}
	return out
}

// palette fills shard areas: light, distinct, and none of them the
// green-to-red of the border costs.
var palette = []color.RGBA{
	{166, 206, 227, 255}, {178, 223, 138, 255}, {251, 154, 153, 255}, {253, 191, 111, 255},
	{202, 178, 214, 255}, {255, 255, 153, 255}, {141, 211, 199, 255}, {190, 186, 218, 255},
	{252, 205, 229, 255}, {217, 217, 217, 255}, {204, 235, 197, 255}, {255, 237, 111, 255},
}

func shardFill(id shard.ID) color.RGBA { return palette[int(id)%len(palette)] }

// costColour runs from green (cheap) through orange to red (the
// costliest border of the map).
func costColour(t float64) color.RGBA {
	t = math.Min(math.Max(t, 0), 1)
	lo, mid, hi := [3]float64{26, 150, 65}, [3]float64{253, 174, 97}, [3]float64{215, 25, 28}
	a, b, u := lo, mid, t*2
	if t > 0.5 {
		a, b, u = mid, hi, (t-0.5)*2
	}
	var c color.RGBA
	c.R = uint8(a[0] + (b[0]-a[0])*u)
	c.G = uint8(a[1] + (b[1]-a[1])*u)
	c.B = uint8(a[2] + (b[2]-a[2])*u)
	c.A = 255
	return c
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// borderCosts returns each border line with its cost and the largest cost.
type costedBorder struct {
	BorderLine
	cost float64
}

func borderCosts(m *shard.Map, rep *Report, metric string) ([]costedBorder, float64, error) {
	switch metric {
	case "", "fanout", "handoffs":
	default:
		return nil, 0, fmt.Errorf("border cost %q: want fanout or handoffs", metric)
	}
	var out []costedBorder
	most := 0.0
	for _, bl := range BorderLines(m) {
		c := costedBorder{BorderLine: bl}
		if rep != nil {
			if br, ok := rep.Border(bl.A, bl.B); ok {
				c.cost = float64(br.Searches)
				if metric == "handoffs" {
					c.cost = float64(br.Handoffs)
				}
			}
		}
		most = math.Max(most, c.cost)
		out = append(out, c)
	}
	return out, most, nil
}

func costLabel(metric string) string {
	if metric == "handoffs" {
		return "handoffs across the border"
	}
	return "searches that asked both shards"
}
