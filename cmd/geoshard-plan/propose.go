package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"geoshard/plan"
	"geoshard/shard"
)

type proposeFlags struct {
	pings, searches, out, svg, png, naiveOut, current, split, shape string
	n                                                               int
	cell, margin, tol                                               float64
}

func runPropose(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("propose", stderr)
	var f proposeFlags
	fs.StringVar(&f.pings, "pings", "", "pings CSV (time,id,lon,lat)")
	fs.StringVar(&f.searches, "searches", "", "searches CSV (time,lon,lat,radius_m[,count])")
	fs.IntVar(&f.n, "shards", 0, "area shards to propose (the catch-all comes on top); with --split, the pieces")
	fs.StringVar(&f.out, "out", "", "where to write the proposed map (GeoJSON); missing directories are made")
	fs.StringVar(&f.svg, "svg", "", "also draw the proposal and the grid as SVG (the grid as <name>-grid.svg)")
	fs.StringVar(&f.png, "png", "", "also draw them as PNG")
	fs.StringVar(&f.naiveOut, "naive-out", "", "also write the equal grid it is compared with (GeoJSON)")
	fs.StringVar(&f.current, "current", "", "the map in use (GeoJSON): report how many drivers the proposal would move")
	fs.StringVar(&f.split, "split", "", "with --current: split only this shard of it into --shards pieces")
	fs.Float64Var(&f.cell, "cell", 250, "density grid cell, metres (10..100000)")
	fs.Float64Var(&f.margin, "margin", 200, "hysteresis margin of the map, metres (0..50000)")
	fs.Float64Var(&f.tol, "tolerance", 0.5, "how far from its fair share of pings a side of a cut may be, as a fraction of it (0 < t < 1)")
	fs.StringVar(&f.shape, "shape", "rect", "rect: rectangles; follow: borders moved cell by cell into the quietest ground (polygons)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case f.out == "" || f.n < 1:
		return errors.New("propose: --shards N (N >= 1) and --out map.geojson")
	case f.pings == "" && f.searches == "":
		return errors.New("propose: --pings and/or --searches")
	case f.split != "" && f.current == "":
		return errors.New("propose: --split SHARD needs --current map.geojson")
	}
	cfg := plan.ProposeConfig{Shards: f.n, CellM: f.cell, Margin: f.margin, Tolerance: f.tol, Shape: f.shape}
	if err := cfg.Check(); err != nil {
		return err
	}
	w, err := plan.ReadWorkload(f.pings, f.searches)
	if err != nil {
		return err
	}
	var cur *shard.Map
	if f.current != "" {
		if cur, err = shard.LoadMapFile(f.current); err != nil {
			return err
		}
	}
	var (
		m    *shard.Map
		data []byte
	)
	if f.split != "" {
		m, data, err = plan.Refine(w, cur, f.split, cfg)
	} else {
		m, data, err = plan.Propose(w, cfg)
	}
	if err != nil {
		return err
	}
	if err := writeFile(f.out, data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d shards with the catch-all\n\n", f.out, m.Len())
	return judge(w, m, cur, f, stdout)
}

// judge replays the workload on the proposal next to the equal grid an
// operator would otherwise draw over the same area with as many area
// shards, says plainly where the proposal loses, and counts the drivers
// a switch from the current map would move.
func judge(w *plan.Workload, m, cur *shard.Map, f proposeFlags, stdout io.Writer) error {
	b, _ := plan.MapBounds(m)
	areas := m.Len() - 1
	c, err := plan.Compare(w, filepath.Base(f.out), m, b, areas, f.margin)
	if err != nil {
		return err
	}
	grid := c.Grid.Map
	if f.naiveOut != "" {
		if err := writeFile(f.naiveOut, grid.GeoJSON()); err != nil {
			return err
		}
	}
	reps := []*plan.Report{c.Proposal, c.Grid}
	if cur != nil {
		reps = append(reps, plan.Replay(filepath.Base(f.current)+" (current)", cur, w))
	}
	if err := plan.WriteSummary(stdout, reps...); err != nil {
		return err
	}
	if err := c.WriteVerdict(stdout); err != nil {
		return err
	}
	if cur != nil {
		if err := plan.CountMoves(w, cur, m).Write(stdout, filepath.Base(f.current)); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout)
	if err := c.Proposal.WriteTable(stdout); err != nil {
		return err
	}
	return drawReports([]*plan.Report{c.Proposal, c.Grid}, w.Pings,
		[]string{f.svg, gridPath(f.svg)}, []string{f.png, gridPath(f.png)})
}

// gridPath names the grid's picture next to the proposal's: a.svg ->
// a-grid.svg.
func gridPath(p string) string {
	if p == "" {
		return ""
	}
	ext := filepath.Ext(p)
	return p[:len(p)-len(ext)] + "-grid" + ext
}

// writeFile writes data to path, making its directory first.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
