package plan

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"geoshard/shard"
)

// WriteSVG draws the map: each shard's area filled and labelled (with its
// members when a report is given), each border coloured and thickened by
// its cost in the report, and a legend. rep may be nil: borders are then
// drawn uncoloured.
func WriteSVG(w io.Writer, m *shard.Map, rep *Report, opt DrawOptions) error {
	l, err := newLayout(m, opt.Width)
	if err != nil {
		return err
	}
	borders, most, err := borderCosts(m, rep, opt.Cost)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	H := l.height + legendHeight
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		l.width, H, l.width, H)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", l.width, H)
	for id := 0; id < m.Len(); id++ {
		for _, poly := range m.Areas(shard.ID(id)) {
			var d strings.Builder
			for _, ring := range poly {
				for i, p := range ring {
					x, y := l.xy(p)
					if i == 0 {
						fmt.Fprintf(&d, "M%.1f %.1f", x, y)
					} else {
						fmt.Fprintf(&d, "L%.1f %.1f", x, y)
					}
				}
				d.WriteString("Z")
			}
			fmt.Fprintf(bw, `<path data-shard="%s" d="%s" fill="%s" fill-rule="evenodd" stroke="#ffffff" stroke-width="0.5"/>`+"\n",
				html.EscapeString(m.Name(shard.ID(id))), d.String(), hex(shardFill(shard.ID(id))))
		}
	}
	if len(opt.Pings) > 0 {
		counts, cols, most := densityGrid(l, opt.Pings)
		bw.WriteString(`<g id="density" fill="#000000">` + "\n")
		for k, c := range counts {
			if c > 0 {
				fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill-opacity="%.2f"/>`+"\n",
					k%cols*densityCell, k/cols*densityCell, densityCell, densityCell, densityAlpha(c, most))
			}
		}
		bw.WriteString("</g>\n")
	}
	for _, b := range borders {
		t := 0.0
		if most > 0 {
			t = b.cost / most
		}
		colour := "#555555"
		if rep != nil {
			colour = hex(costColour(t))
		}
		fmt.Fprintf(bw, `<g data-border="%s|%s" data-cost="%g" stroke="%s" stroke-width="%.1f" stroke-linecap="round">`+"\n",
			html.EscapeString(m.Name(b.A)), html.EscapeString(m.Name(b.B)), b.cost, colour, 2+6*t)
		for _, s := range b.Segments {
			x0, y0 := l.xy(s.P)
			x1, y1 := l.xy(s.Q)
			fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", x0, y0, x1, y1)
		}
		bw.WriteString("</g>\n")
	}
	for id := 0; id < m.Len(); id++ {
		b, ok := m.Bounds(shard.ID(id))
		if !ok {
			continue
		}
		x, y := l.xy([2]float64{(b.MinLon + b.MaxLon) / 2, (b.MinLat + b.MaxLat) / 2})
		label := m.Name(shard.ID(id))
		if rep != nil && id < len(rep.Shards) {
			label += fmt.Sprintf(" (%d members)", rep.Shards[id].Members)
		}
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#222222">%s</text>`+"\n", x, y, html.EscapeString(label))
	}
	writeSVGLegend(bw, l, m, rep, opt, most)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func writeSVGLegend(bw *bufio.Writer, l *layout, m *shard.Map, rep *Report, opt DrawOptions, most float64) {
	y := l.height + 20
	title := opt.Title
	if title == "" {
		title = "region map " + m.Version()
	}
	if rep != nil {
		title += fmt.Sprintf(" — %d searches, %.1f%% fan out; %d handoffs (%.0f/h); %d flaps suppressed",
			rep.Searches, 100*rep.FanOutShare(), rep.Handoffs, rep.PerHour(rep.Handoffs), rep.FlapsSuppressed)
	}
	fmt.Fprintf(bw, `<text x="10" y="%d" font-weight="bold">%s</text>`+"\n", y, html.EscapeString(title))
	y += 16
	dens := ""
	if len(opt.Pings) > 0 {
		dens = "; grey: density of pings"
	}
	fmt.Fprintf(bw, `<text x="10" y="%d">border colour: %s, from 0 (green) to %g (red); thicker is costlier%s</text>`+"\n",
		y, costLabel(opt.Cost), most, dens)
	y += 10
	for i := 0; i < 20; i++ {
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="15" height="12" fill="%s"/>`+"\n", 10+15*i, y, hex(costColour(float64(i)/19)))
	}
	y += 30
	x := 10
	for id := 0; id < m.Len() && x < l.width-100; id++ {
		if _, ok := m.Bounds(shard.ID(id)); !ok {
			continue
		}
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`, x, y-10, hex(shardFill(shard.ID(id))))
		fmt.Fprintf(bw, `<text x="%d" y="%d">%s</text>`+"\n", x+16, y, html.EscapeString(m.Name(shard.ID(id))))
		x += 24 + 7*len(m.Name(shard.ID(id)))
	}
}
