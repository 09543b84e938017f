package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"geoshard/plan"
)

func runPropose(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("propose", stderr)
	pings := fs.String("pings", "", "pings CSV (time,id,lon,lat)")
	searches := fs.String("searches", "", "searches CSV (time,lon,lat,radius_m)")
	n := fs.Int("shards", 0, "area shards to propose (the catch-all comes on top)")
	out := fs.String("out", "", "where to write the proposed map (GeoJSON)")
	svg := fs.String("svg", "", "also draw the proposed map, borders coloured by fan-out, as SVG")
	png := fs.String("png", "", "also draw it as PNG")
	naiveOut := fs.String("naive-out", "", "also write the equal grid it is compared with (GeoJSON)")
	cell := fs.Float64("cell", 250, "density grid cell, metres")
	margin := fs.Float64("margin", 200, "hysteresis margin of the map, metres")
	tol := fs.Float64("tolerance", 0.5, "how far from its fair share of pings a side of a cut may be (fraction)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" || *n < 1 {
		return errors.New("propose: --shards N (N >= 1) and --out map.geojson")
	}
	if *pings == "" && *searches == "" {
		return errors.New("propose: --pings and/or --searches")
	}
	w, err := plan.ReadWorkload(*pings, *searches)
	if err != nil {
		return err
	}
	m, data, err := plan.Propose(w, plan.ProposeConfig{Shards: *n, CellM: *cell, Margin: *margin, Tolerance: *tol})
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	// Judge the proposal on the workload it came from, next to the equal
	// grid an operator would otherwise draw over the same area.
	rep := plan.Replay(filepath.Base(*out), m, w)
	b, _ := plan.MapBounds(m)
	naive, err := plan.NaiveGrid(b, *n, *margin)
	if err != nil {
		return err
	}
	if *naiveOut != "" {
		if err := os.WriteFile(*naiveOut, naive.GeoJSON(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d area shards and the catch-all\n\n", *out, *n)
	if err := plan.WriteSummary(stdout, rep, plan.Replay(fmt.Sprintf("equal grid, %d cells", *n), naive, w)); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	return drawFiles(m, rep, w.Pings, *svg, *png)
}
