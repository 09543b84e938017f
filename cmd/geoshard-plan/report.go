package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"geoshard/plan"
	"geoshard/shard"
)

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	pings := fs.String("pings", "", "pings CSV (time,id,lon,lat)")
	searches := fs.String("searches", "", "searches CSV (time,lon,lat,radius_m)")
	var maps listFlag
	fs.Var(&maps, "map", "a candidate region map (GeoJSON); repeat to compare")
	svgDir := fs.String("svg-dir", "", "also draw each map, borders coloured by fan-out over the ping density, as <dir>/<map>.svg and .png")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(maps) == 0 {
		return errors.New("report: at least one --map")
	}
	if *pings == "" && *searches == "" {
		return errors.New("report: --pings and/or --searches")
	}
	w, err := plan.ReadWorkload(*pings, *searches)
	if err != nil {
		return err
	}
	var reps []*plan.Report
	for _, path := range maps {
		m, err := shard.LoadMapFile(path)
		if err != nil {
			return err
		}
		reps = append(reps, plan.Replay(filepath.Base(path), m, w))
	}
	if err := plan.WriteSummary(stdout, reps...); err != nil {
		return err
	}
	for _, r := range reps {
		fmt.Fprintln(stdout)
		if err := r.WriteTable(stdout); err != nil {
			return err
		}
	}
	if *svgDir != "" {
		for _, r := range reps {
			base := filepath.Join(*svgDir, strings.TrimSuffix(r.Name, filepath.Ext(r.Name)))
			if err := drawFiles(r.Map, r, w.Pings, base+".svg", base+".png"); err != nil {
				return err
			}
		}
	}
	return nil
}

// drawFiles writes the SVG and PNG pictures of a map; empty paths are
// skipped.
func drawFiles(m *shard.Map, rep *plan.Report, pings []plan.Ping, svgPath, pngPath string) error {
	write := func(path string, draw func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := draw(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	opt := plan.DrawOptions{Title: rep.Name, Pings: pings}
	if err := write(svgPath, func(w io.Writer) error { return plan.WriteSVG(w, m, rep, opt) }); err != nil {
		return err
	}
	return write(pngPath, func(w io.Writer) error { return plan.WritePNG(w, m, rep, opt) })
}
