package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"geoshard/plan"
)

// runSweep proposes a map for every shard count from 2 to --max-shards
// and scores each next to the equal grid of as many shards, so an
// operator sees at a glance which counts the planner helps with and
// where the grid is as good or better.
func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", stderr)
	pings := fs.String("pings", "", "pings CSV (time,id,lon,lat)")
	searches := fs.String("searches", "", "searches CSV (time,lon,lat,radius_m[,count])")
	most := fs.Int("max-shards", 8, "largest shard count to try (2..32)")
	cell := fs.Float64("cell", 250, "density grid cell, metres (10..100000)")
	margin := fs.Float64("margin", 200, "hysteresis margin of the maps, metres (0..50000)")
	tol := fs.Float64("tolerance", 0.5, "balance tolerance of a cut (0 < t < 1)")
	shape := fs.String("shape", "rect", "rect or follow")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *pings == "" && *searches == "":
		return errors.New("sweep: --pings and/or --searches")
	case *most < 2 || *most > 32:
		return errors.New("sweep: --max-shards out of range 2..32")
	}
	w, err := plan.ReadWorkload(*pings, *searches)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shards\tfan-out %\tgrid\thandoffs\tgrid\tflaps\tgrid\tbalance\tgrid\tverdict\t")
	for n := 2; n <= *most; n++ {
		cfg := plan.ProposeConfig{Shards: n, CellM: *cell, Margin: *margin, Tolerance: *tol, Shape: *shape}
		m, _, err := plan.Propose(w, cfg)
		if err != nil {
			return fmt.Errorf("sweep: %d shards: %w", n, err)
		}
		b, _ := plan.MapBounds(m)
		c, err := plan.Compare(w, fmt.Sprintf("%d shards", n), m, b, n, *margin)
		if err != nil {
			return fmt.Errorf("sweep: %d shards: %w", n, err)
		}
		p, g := c.Proposal, c.Grid
		verdict := "better or equal"
		switch {
		case c.Worse():
			verdict = "WORSE: keep the grid"
		case len(c.Losses) > 0:
			verdict = fmt.Sprintf("loses on %d of 4", len(c.Losses))
		}
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%s\t\n", n, 100*p.FanOutShare(), 100*g.FanOutShare(),
			p.Handoffs, g.Handoffs, p.FlapsSuppressed, g.FlapsSuppressed, p.Balance(), g.Balance(), verdict)
	}
	return tw.Flush()
}
