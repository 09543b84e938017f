package plan

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"geoshard/shard"
)

// WriteSVG draws the map: a title with the report's totals, each shard's
// area filled and labelled with its members, the pings' density, each
// border coloured and thickened by its cost, a scale bar, corner
// coordinates and a legend with values. rep may be nil: borders are then
// drawn uncoloured.
func WriteSVG(w io.Writer, m *shard.Map, rep *Report, opt DrawOptions) error {
	s, err := buildScene(m, rep, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n",
		s.w, s.h, s.w, s.h)
	for i := range s.items {
		writeSVGShape(bw, &s.items[i])
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func writeSVGShape(bw *bufio.Writer, sh *shape) {
	var attrs strings.Builder
	for _, a := range sh.attrs {
		fmt.Fprintf(&attrs, ` %s="%s"`, a[0], html.EscapeString(a[1]))
	}
	switch sh.kind {
	case rectShape:
		if sh.alpha > 0 {
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#000000" fill-opacity="%.2f"/>`+"\n",
				sh.x0, sh.y0, sh.x1-sh.x0, sh.y1-sh.y0, sh.alpha)
			return
		}
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n",
			sh.x0, sh.y0, sh.x1-sh.x0, sh.y1-sh.y0, hex(sh.colour))
	case polyShape:
		var d strings.Builder
		for _, ring := range sh.rings {
			for i, p := range ring {
				fmt.Fprintf(&d, "%s%.1f %.1f", map[bool]string{true: "M", false: "L"}[i == 0], p[0], p[1])
			}
			d.WriteString("Z")
		}
		fmt.Fprintf(bw, `<path%s d="%s" fill="%s" fill-rule="evenodd" stroke="#ffffff" stroke-width="0.5"/>`+"\n",
			attrs.String(), d.String(), hex(sh.colour))
	case lineShape:
		fmt.Fprintf(bw, `<line%s stroke="%s" stroke-width="%.1f" stroke-linecap="round" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n",
			attrs.String(), hex(sh.colour), sh.width, sh.x0, sh.y0, sh.x1, sh.y1)
	case textShape:
		extra := ""
		if sh.bold {
			extra += ` font-weight="bold"`
		}
		if sh.halo {
			extra += ` stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`
		}
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="%g" text-anchor="%s" fill="%s"%s>%s</text>`+"\n",
			sh.x0, sh.y0, sh.size, sh.anchor, hex(sh.colour), extra, html.EscapeString(sh.text))
	}
}
