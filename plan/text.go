package plan

import (
	"image"
	"image/color"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The Go fonts, parsed once: they are part of the binary.
var (
	parseFonts    sync.Once
	regular, bold *opentype.Font
	errParseFonts error
)

// faces draws text into PNGs, one face per size and weight.
type faces struct {
	cache map[[2]float64]font.Face
}

func newFaces() *faces {
	parseFonts.Do(func() {
		if regular, errParseFonts = opentype.Parse(goregular.TTF); errParseFonts == nil {
			bold, errParseFonts = opentype.Parse(gobold.TTF)
		}
	})
	return &faces{cache: map[[2]float64]font.Face{}}
}

func (f *faces) face(size float64, isBold bool) font.Face {
	if errParseFonts != nil {
		return nil
	}
	k := [2]float64{size, 0}
	src := regular
	if isBold {
		k[1], src = 1, bold
	}
	if fc, ok := f.cache[k]; ok {
		return fc
	}
	fc, err := opentype.NewFace(src, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil
	}
	f.cache[k] = fc
	return fc
}

// draw writes a text shape at its baseline, anchored as in SVG, with a
// white halo when asked so labels stay legible over borders and density.
func (f *faces) draw(img *image.RGBA, sh *shape) {
	fc := f.face(sh.size, sh.bold)
	if fc == nil {
		return
	}
	w := font.MeasureString(fc, sh.text)
	x := fixed.Int26_6(math.Round(sh.x0 * 64))
	switch sh.anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	y := fixed.Int26_6(math.Round(sh.y0 * 64))
	d := &font.Drawer{Dst: img, Face: fc}
	if sh.halo {
		d.Src = image.NewUniform(color.RGBA{255, 255, 255, 255})
		for _, o := range [][2]fixed.Int26_6{{-96, 0}, {96, 0}, {0, -96}, {0, 96}, {-64, -64}, {64, 64}, {-64, 64}, {64, -64}} {
			d.Dot = fixed.Point26_6{X: x + o[0], Y: y + o[1]}
			d.DrawString(sh.text)
		}
	}
	d.Src = image.NewUniform(sh.colour)
	d.Dot = fixed.Point26_6{X: x, Y: y}
	d.DrawString(sh.text)
}
