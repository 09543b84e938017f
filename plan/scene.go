package plan

import (
	"fmt"
	"image/color"
	"math"

	"geoshard/shard"
)

// A scene is a picture as a list of shapes in pixel coordinates. WriteSVG
// and WritePNG render the same scene, so both pictures carry the same
// title, legend values, scale bar, labels and density.
type scene struct {
	w, h  int
	items []shape
}

type shapeKind int

const (
	rectShape shapeKind = iota
	polyShape
	lineShape
	textShape
)

type shape struct {
	kind           shapeKind
	rings          [][][2]float64 // polyShape, in pixels
	x0, y0, x1, y1 float64        // rectShape corners; lineShape ends; textShape x0, y0
	width          float64        // lineShape stroke
	colour         color.RGBA
	alpha          float64 // rectShape opacity (density cells); 0 is opaque
	text           string
	size           float64 // text size, pixels
	anchor         string  // start, middle or end
	bold, halo     bool
	attrs          [][2]string // data-* attributes in the SVG
}

func (s *scene) add(sh shape) { s.items = append(s.items, sh) }

func (s *scene) rect(x0, y0, x1, y1 float64, c color.RGBA) {
	s.add(shape{kind: rectShape, x0: x0, y0: y0, x1: x1, y1: y1, colour: c})
}

func (s *scene) text(x, y float64, t string, size float64, anchor string, bold bool) {
	s.add(shape{kind: textShape, x0: x, y0: y, text: t, size: size, anchor: anchor, bold: bold, colour: ink})
}

var (
	ink   = color.RGBA{34, 34, 34, 255}
	white = color.RGBA{255, 255, 255, 255}
	grey  = color.RGBA{85, 85, 85, 255}
)

// Bands around the map: the title above, the legend below.
const (
	titleHeight  = 44
	legendHeight = 150
)

// buildScene lays out the picture of a map and its report.
func buildScene(m *shard.Map, rep *Report, opt DrawOptions) (*scene, error) {
	l, err := newLayout(m, opt.Width)
	if err != nil {
		return nil, err
	}
	l.top = titleHeight
	borders, most, err := borderCosts(m, rep, opt.Cost)
	if err != nil {
		return nil, err
	}
	if opt.Max > 0 {
		most = opt.Max
	}
	s := &scene{w: l.width, h: titleHeight + l.height + legendHeight}
	s.rect(0, 0, float64(s.w), float64(s.h), white)
	for id := 0; id < m.Len(); id++ {
		for _, poly := range m.Areas(shard.ID(id)) {
			s.add(shape{kind: polyShape, rings: l.rings(poly), colour: shardFill(shard.ID(id)),
				attrs: [][2]string{{"data-shard", m.Name(shard.ID(id))}}})
		}
	}
	densest := 0
	if len(opt.Pings) > 0 {
		var counts []int
		var cols int
		counts, cols, densest = densityGrid(l, opt.Pings)
		for k, c := range counts {
			if a := densityAlpha(c, densest); a > 0 {
				x, y := float64(k%cols*densityCell), float64(l.top+k/cols*densityCell)
				s.add(shape{kind: rectShape, x0: x, y0: y, x1: x + densityCell, y1: y + densityCell, alpha: a})
			}
		}
	}
	for _, b := range borders {
		t := ratio(b.cost, most)
		c := grey
		if rep != nil {
			c = costColour(t)
		}
		attrs := [][2]string{{"data-border", m.Name(b.A) + "|" + m.Name(b.B)}, {"data-cost", fmt.Sprintf("%g", b.cost)}}
		for _, seg := range b.Segments {
			x0, y0 := l.xy(seg.P)
			x1, y1 := l.xy(seg.Q)
			s.add(shape{kind: lineShape, x0: x0, y0: y0, x1: x1, y1: y1, width: 2 + 6*math.Min(t, 1), colour: c, attrs: attrs})
		}
	}
	shardLabels(s, l, m, rep)
	titles(s, m, rep, opt)
	y := float64(l.top + l.height)
	s.text(4, y-4, fmt.Sprintf("%.4f, %.4f", l.view.MinLon, l.view.MinLat), 10, "start", false)
	s.text(float64(s.w-4), float64(l.top)+12, fmt.Sprintf("%.4f, %.4f", l.view.MaxLon, l.view.MaxLat), 10, "end", false)
	scaleBar(s, l)
	legend(s, l, m, rep, opt, most, densest)
	return s, nil
}

// shardLabels names each shard, with its members, at the deepest point of
// its largest area.
func shardLabels(s *scene, l *layout, m *shard.Map, rep *Report) {
	for id := 0; id < m.Len(); id++ {
		p, ok := LabelPoint(m.Areas(shard.ID(id)))
		if !ok {
			continue
		}
		x, y := l.xy(p)
		s.add(shape{kind: textShape, x0: x, y0: y, text: m.Name(shard.ID(id)), size: 13, anchor: "middle", bold: true, halo: true, colour: ink})
		if rep != nil && id < len(rep.Shards) {
			s.add(shape{kind: textShape, x0: x, y0: y + 14, text: fmt.Sprintf("%s members", thousands(rep.Shards[id].Members)),
				size: 11, anchor: "middle", halo: true, colour: ink})
		}
	}
}

func titles(s *scene, m *shard.Map, rep *Report, opt DrawOptions) {
	title := opt.Title
	if title == "" {
		title = "region map " + m.Version()
	}
	s.text(8, 18, title, 15, "start", true)
	if rep != nil {
		s.text(8, 36, fmt.Sprintf("%s searches, %.1f %% fan out; %s handoffs (%.0f/h); %s flaps suppressed; balance %.2f",
			thousands(rep.Searches), 100*rep.FanOutShare(), thousands(rep.Handoffs), rep.PerHour(rep.Handoffs),
			thousands(rep.FlapsSuppressed), rep.Balance()), 12, "start", false)
	}
}

// scaleBar draws a bar of a round length (1, 2 or 5 times a power of ten
// metres) about a fifth of the picture wide, at the map's middle latitude.
func scaleBar(s *scene, l *layout) {
	perPx := mPerDegLat / l.scale
	want := float64(l.width) / 5 * perPx
	unit := math.Pow(10, math.Floor(math.Log10(want)))
	length := unit
	for _, k := range []float64{2, 5} {
		if k*unit <= want {
			length = k * unit
		}
	}
	px := length / perPx
	x0, y := float64(l.width)-px-16, float64(l.top+l.height)-12
	s.rect(x0-4, y-16, x0+px+4, y+5, white)
	s.rect(x0, y, x0+px, y+3, ink)
	s.rect(x0, y-5, x0+1.5, y+3, ink)
	s.rect(x0+px-1.5, y-5, x0+px, y+3, ink)
	label := fmt.Sprintf("%g m", length)
	if length >= 1000 {
		label = fmt.Sprintf("%g km", length/1000)
	}
	s.text(x0+px/2, y-4, label, 11, "middle", false)
}

// legend explains colours with values: the border cost ramp (shared by
// every map of a report when DrawOptions.Max is set), the density ramp,
// and the shard swatches.
func legend(s *scene, l *layout, m *shard.Map, rep *Report, opt DrawOptions, most float64, densest int) {
	y := float64(l.top+l.height) + 22
	s.text(10, y, "border colour and width: "+costLabel(opt.Cost), 12, "start", false)
	ramp(s, 10, y+6, 300, most, costColour)
	if densest > 0 {
		s.text(340, y, fmt.Sprintf("grey: pings per %d-pixel cell", densityCell), 12, "start", false)
		ramp(s, 340, y+6, 200, float64(densest), func(t float64) color.RGBA {
			v := uint8(255 * (1 - densityAlpha(max(1, int(t*float64(densest))), densest)))
			return color.RGBA{v, v, v, 255}
		})
	}
	y += 62
	x := 10.0
	for id := 0; id < m.Len(); id++ {
		if _, ok := m.Bounds(shard.ID(id)); !ok {
			continue
		}
		label := m.Name(shard.ID(id))
		if rep != nil && id < len(rep.Shards) {
			label += " (" + thousands(rep.Shards[id].Members) + ")"
		}
		w := 22 + 6.5*float64(len(label))
		if x+w > float64(l.width) {
			x, y = 10, y+18
			if y > float64(s.h)-4 {
				break
			}
		}
		s.rect(x, y-10, x+12, y+2, shardFill(shard.ID(id)))
		s.text(x+16, y, label, 11, "start", false)
		x += w
	}
}

// ramp draws a colour bar of the given width with ticks at 0, half and
// the top value.
func ramp(s *scene, x, y, w, top float64, colour func(float64) color.RGBA) {
	const steps = 30
	for i := 0; i < steps; i++ {
		s.rect(x+w*float64(i)/steps, y, x+w*float64(i+1)/steps+0.5, y+12, colour(float64(i)/(steps-1)))
	}
	for i, v := range []float64{0, top / 2, top} {
		tx := x + w*float64(i)/2
		s.rect(tx-0.5, y+12, tx+0.5, y+16, ink)
		anchor := [...]string{"start", "middle", "end"}[i]
		s.text(tx, y+28, tickValue(v), 11, anchor, false)
	}
}

func tickValue(v float64) string {
	if v == math.Trunc(v) {
		return thousands(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// thousands writes n with thin separators: 12,345.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := ""
	for len(s) > 3 {
		out = "," + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	if neg {
		s = "-" + s
	}
	return s + out
}
