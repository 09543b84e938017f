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

// WritePNG draws what WriteSVG draws, text included (Go fonts,
// golang.org/x/image): areas filled by scanline, density cells, borders
// as thick lines coloured by cost, labels, scale bar and legend.
func WritePNG(w io.Writer, m *shard.Map, rep *Report, opt DrawOptions) error {
	img, err := RenderImage(m, rep, opt)
	if err != nil {
		return err
	}
	// Fast compression: the pictures are flat colours, which deflate well
	// anyway, and encoding dominated the cost of drawing.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

// RenderImage rasterises the map as WritePNG encodes it.
func RenderImage(m *shard.Map, rep *Report, opt DrawOptions) (*image.RGBA, error) {
	s, err := buildScene(m, rep, opt)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
	fonts := newFaces()
	for i := range s.items {
		sh := &s.items[i]
		switch sh.kind {
		case rectShape:
			r := image.Rect(int(math.Round(sh.x0)), int(math.Round(sh.y0)), int(math.Round(sh.x1)), int(math.Round(sh.y1)))
			if sh.alpha > 0 {
				darken(img, r, sh.alpha)
			} else {
				fillRect(img, r, sh.colour)
			}
		case polyShape:
			fillPolygon(img, sh.rings, sh.colour)
		case lineShape:
			thickLine(img, sh.x0, sh.y0, sh.x1, sh.y1, sh.width/2, sh.colour)
		case textShape:
			fonts.draw(img, sh)
		}
	}
	return img, nil
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		fillSpan(img, y, r.Min.X, r.Max.X-1, c)
	}
}

// fillSpan paints pixels x0..x1 of row y (inside the image): one pixel,
// then copies that double the painted run, which is far cheaper than a
// call per pixel (and than per-pixel checks under the race detector).
func fillSpan(img *image.RGBA, y, x0, x1 int, c color.RGBA) {
	if x1 < x0 {
		return
	}
	i := img.PixOffset(x0, y)
	row := img.Pix[i : i+4*(x1-x0+1)]
	row[0], row[1], row[2], row[3] = c.R, c.G, c.B, c.A
	for n := 4; n < len(row); n *= 2 {
		copy(row[n:], row[:n])
	}
}

// fillPolygon fills a polygon with holes by the even-odd rule, sampling
// each pixel at its centre: for each row, the crossings of every ring's
// edges, sorted, bound the runs inside.
func fillPolygon(img *image.RGBA, rings [][][2]float64, c color.RGBA) {
	type seg struct{ x0, y0, x1, y1 float64 }
	var segs []seg
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, ring := range rings {
		for i := 0; i+1 < len(ring); i++ {
			x0, y0 := ring[i][0], ring[i][1]
			x1, y1 := ring[i+1][0], ring[i+1][1]
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
			fillSpan(img, py, from, to, c)
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
