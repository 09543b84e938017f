package plan

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"

	"geoshard/shard"
)

// WritePNG draws what WriteSVG draws, without the text: areas filled by
// scanline, borders as thick lines coloured by cost, and the legend's
// colour ramp and shard swatches.
func WritePNG(w io.Writer, m *shard.Map, rep *Report, opt DrawOptions) error {
	img, err := RenderImage(m, rep, opt)
	if err != nil {
		return err
	}
	return png.Encode(w, img)
}

// RenderImage rasterises the map as WritePNG encodes it.
func RenderImage(m *shard.Map, rep *Report, opt DrawOptions) (*image.RGBA, error) {
	l, err := newLayout(m, opt.Width)
	if err != nil {
		return nil, err
	}
	borders, most, err := borderCosts(m, rep, opt.Cost)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, l.width, l.height+legendHeight))
	fillRect(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	for id := 0; id < m.Len(); id++ {
		for _, poly := range m.Areas(shard.ID(id)) {
			fillPolygon(img, l, poly, shardFill(shard.ID(id)))
		}
	}
	if len(opt.Pings) > 0 {
		counts, cols, most := densityGrid(l, opt.Pings)
		for k, c := range counts {
			if a := densityAlpha(c, most); a > 0 {
				x, y := k%cols*densityCell, k/cols*densityCell
				darken(img, image.Rect(x, y, x+densityCell, y+densityCell), a)
			}
		}
	}
	for _, b := range borders {
		t := 0.0
		if most > 0 {
			t = b.cost / most
		}
		c := color.RGBA{85, 85, 85, 255}
		if rep != nil {
			c = costColour(t)
		}
		for _, s := range b.Segments {
			x0, y0 := l.xy(s.P)
			x1, y1 := l.xy(s.Q)
			thickLine(img, x0, y0, x1, y1, 1+3*t, c)
		}
	}
	y := l.height + 30
	for i := 0; i < 20; i++ {
		fillRect(img, image.Rect(10+15*i, y, 25+15*i, y+12), costColour(float64(i)/19))
	}
	y += 30
	x := 10
	for id := 0; id < m.Len() && x+12 < l.width; id++ {
		if _, ok := m.Bounds(shard.ID(id)); ok {
			fillRect(img, image.Rect(x, y, x+12, y+12), shardFill(shard.ID(id)))
			x += 20
		}
	}
	return img, nil
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// fillPolygon fills a polygon with holes by the even-odd rule, sampling
// each pixel at its centre: for each row, the crossings of every ring's
// edges, sorted, bound the runs inside.
func fillPolygon(img *image.RGBA, l *layout, rings [][][2]float64, c color.RGBA) {
	type seg struct{ x0, y0, x1, y1 float64 }
	var segs []seg
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, ring := range rings {
		for i := 0; i+1 < len(ring); i++ {
			x0, y0 := l.xy(ring[i])
			x1, y1 := l.xy(ring[i+1])
			if y0 == y1 {
				continue
			}
			segs = append(segs, seg{x0, y0, x1, y1})
			minY, maxY = math.Min(minY, math.Min(y0, y1)), math.Max(maxY, math.Max(y0, y1))
		}
	}
	b := img.Bounds()
	y0 := max(int(math.Floor(minY)), b.Min.Y)
	y1 := min(int(math.Ceil(maxY)), b.Max.Y-1)
	var xs []float64
	for py := y0; py <= y1; py++ {
		sy := float64(py) + 0.5
		xs = xs[:0]
		for _, s := range segs {
			if (s.y0 <= sy) != (s.y1 <= sy) {
				xs = append(xs, s.x0+(sy-s.y0)*(s.x1-s.x0)/(s.y1-s.y0))
			}
		}
		slices.Sort(xs)
		for i := 0; i+1 < len(xs); i += 2 {
			from := max(int(math.Ceil(xs[i]-0.5)), b.Min.X)
			to := min(int(math.Floor(xs[i+1]-0.5)), b.Max.X-1)
			for px := from; px <= to; px++ {
				img.SetRGBA(px, py, c)
			}
		}
	}
}

// thickLine stamps a square of half-width hw at half-pixel steps along
// the segment.
func thickLine(img *image.RGBA, x0, y0, x1, y1, hw float64, c color.RGBA) {
	n := int(math.Ceil(math.Hypot(x1-x0, y1-y0)*2)) + 1
	if n > 1<<20 {
		return
	}
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		x, y := x0+(x1-x0)*t, y0+(y1-y0)*t
		fillRect(img, image.Rect(int(math.Floor(x-hw)), int(math.Floor(y-hw)), int(math.Ceil(x+hw)), int(math.Ceil(y+hw))), c)
	}
}

// darken blends black over a rectangle with opacity a.
func darken(img *image.RGBA, r image.Rectangle, a float64) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			c.R, c.G, c.B = uint8(float64(c.R)*(1-a)), uint8(float64(c.G)*(1-a)), uint8(float64(c.B)*(1-a))
			img.SetRGBA(x, y, c)
		}
	}
}
