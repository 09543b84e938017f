package plan

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"

	"geoshard/shard"
)

func TestBorderLinesGrid(t *testing.T) {
	m := shard.GridMap(0, 0, 2, 2, 2, 2, 100)
	lines := BorderLines(m)
	// Four borders between cells (the diagonal pairs share only a
	// point), and the four cells' outer edges against the catch-all.
	inner, outer := 0, 0
	for _, l := range lines {
		length := 0.0
		for _, s := range l.Segments {
			length += abs(s.Q[0]-s.P[0]) + abs(s.Q[1]-s.P[1])
		}
		if l.A == m.CatchAll() || l.B == m.CatchAll() {
			outer++
			if length != 2 {
				t.Errorf("%s|%s: outer border %v long, want 2", m.Name(l.A), m.Name(l.B), length)
			}
			continue
		}
		inner++
		if length != 1 {
			t.Errorf("%s|%s: border %v long, want 1", m.Name(l.A), m.Name(l.B), length)
		}
	}
	if inner != 4 || outer != 4 {
		t.Errorf("%d inner and %d outer borders, want 4 and 4", inner, outer)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestPictures(t *testing.T) {
	m := shard.GridMap(-1, -1, 1, 1, 2, 1, 200)
	w := &Workload{
		// A driver on each side near the border, so the search must ask
		// both shards (the server skips a shard that cannot hold a hit).
		Pings: []Ping{{T: 0, ID: "d", Lon: -0.5, Lat: 0}, {T: 1, ID: "w", Lon: -0.004, Lat: 0},
			{T: 1, ID: "e", Lon: 0.004, Lat: 0}, {T: 4, ID: "d", Lon: 0.5, Lat: 0}},
		Searches: []Search{{T: 5, Lon: 0, Lat: 0, RadiusM: 1000}},
	}
	rep := Replay("two cells", m, w)
	for _, metric := range []string{"fanout", "handoffs"} {
		var svg bytes.Buffer
		if err := WriteSVG(&svg, m, rep, DrawOptions{Cost: metric, Width: 400}); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
		shards := map[string]bool{}
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG is not well-formed XML: %v", err)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
				for _, a := range se.Attr {
					if a.Name.Local == "data-shard" {
						shards[a.Value] = true
					}
				}
			}
		}
		if len(shards) != 2 || !shards["cell-0-0"] || !shards["cell-1-0"] {
			t.Errorf("SVG areas: %v", shards)
		}
		// The one internal border carries the whole cost: it is red.
		if !strings.Contains(svg.String(), `data-border="cell-0-0|cell-1-0" data-cost="1" stroke="#d7191c"`) {
			t.Errorf("%s: the costliest border is not red:\n%s", metric, svg.String())
		}
	}
	var buf bytes.Buffer
	if err := WritePNG(&buf, m, rep, DrawOptions{Width: 400}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	west, east, red := shardFill(0), shardFill(1), costColour(1)
	for _, c := range []struct {
		name string
		rgb  [3]uint32
		min  int
	}{
		{"west fill", [3]uint32{uint32(west.R), uint32(west.G), uint32(west.B)}, 400 * 190 * 4 / 10},
		{"east fill", [3]uint32{uint32(east.R), uint32(east.G), uint32(east.B)}, 400 * 190 * 4 / 10},
		{"red border", [3]uint32{uint32(red.R), uint32(red.G), uint32(red.B)}, 190 * 4},
	} {
		if counts[c.rgb] < c.min {
			t.Errorf("%s: %d pixels, want at least %d", c.name, counts[c.rgb], c.min)
		}
	}
}

func TestPictureErrors(t *testing.T) {
	only, err := shard.LoadMap([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"shard":"a"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  DrawOptions
	}{
		{"bad metric", DrawOptions{Cost: "colour"}},
		{"too narrow", DrawOptions{Width: 10}},
	} {
		if err := WriteSVG(io.Discard, only, nil, c.opt); err == nil {
			t.Errorf("%s: SVG accepted", c.name)
		}
		if err := WritePNG(io.Discard, only, nil, c.opt); err == nil {
			t.Errorf("%s: PNG accepted", c.name)
		}
	}
	if err := WriteSVG(io.Discard, only, nil, DrawOptions{}); err != nil {
		t.Errorf("a map without a report: %v", err)
	}
}

func TestDensityLayer(t *testing.T) {
	m := shard.GridMap(-1, -1, 1, 1, 2, 1, 200)
	pings := []Ping{{Lon: -0.5, Lat: 0.5}, {Lon: -0.5, Lat: 0.5}, {Lon: 0.5, Lat: -0.5}}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, m, nil, DrawOptions{Width: 400, Pings: pings}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), "fill-opacity="); n != 2 {
		t.Errorf("%d density cells drawn, want 2 (two places pinged)", n)
	}
	plain, err := RenderImage(m, nil, DrawOptions{Width: 400})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := RenderImage(m, nil, DrawOptions{Width: 400, Pings: pings})
	if err != nil {
		t.Fatal(err)
	}
	// Count in the map part only: the legend gains a density ramp.
	l, err := newLayout(m, 400)
	if err != nil {
		t.Fatal(err)
	}
	darker := 0
	for i := titleHeight * plain.Stride; i < (titleHeight+l.height)*plain.Stride; i += 4 {
		if dense.Pix[i] < plain.Pix[i] {
			darker++
		}
	}
	if darker != 2*densityCell*densityCell {
		t.Errorf("%d pixels darkened, want two cells of %d", darker, densityCell*densityCell)
	}
}
