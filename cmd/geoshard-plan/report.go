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
	searches := fs.String("searches", "", "searches CSV (time,lon,lat,radius_m[,count])")
	var maps listFlag
	fs.Var(&maps, "map", "a candidate region map (GeoJSON); repeat to compare")
	svgDir := fs.String("svg-dir", "", "also draw each map, borders coloured by fan-out on one scale over the ping density, as <dir>/<map>.svg and .png")
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
		if err := os.MkdirAll(*svgDir, 0o755); err != nil {
			return err
		}
		var svgs, pngs []string
		for _, base := range pictureNames(reps) {
			svgs = append(svgs, filepath.Join(*svgDir, base+".svg"))
			pngs = append(pngs, filepath.Join(*svgDir, base+".png"))
		}
		if err := drawReports(reps, w.Pings, svgs, pngs); err != nil {
			return err
		}
	}
	return nil
}

// pictureNames gives each map's pictures a file name of its own: the
// map's base name, numbered when two maps share one (a/map.geojson and
// b/map.geojson would otherwise overwrite each other).
func pictureNames(reps []*plan.Report) []string {
	used := map[string]bool{}
	var out []string
	for _, r := range reps {
		base := strings.TrimSuffix(r.Name, filepath.Ext(r.Name))
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name] = true
		out = append(out, name)
	}
	return out
}

// drawReports draws each report's map on one colour scale, so a red
// border is as costly in every picture; empty paths are skipped.
func drawReports(reps []*plan.Report, pings []plan.Ping, svgs, pngs []string) error {
	most := plan.MaxCost("fanout", reps...)
	for i, r := range reps {
		if err := drawFiles(r.Map, r, pings, most, svgs[i], pngs[i]); err != nil {
			return err
		}
	}
	return nil
}

// drawFiles writes the SVG and PNG pictures of a map; empty paths are
// skipped.
func drawFiles(m *shard.Map, rep *plan.Report, pings []plan.Ping, most float64, svgPath, pngPath string) error {
	write := func(path string, draw func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
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
	opt := plan.DrawOptions{Title: rep.Name, Pings: pings, Max: most}
	if err := write(svgPath, func(w io.Writer) error { return plan.WriteSVG(w, m, rep, opt) }); err != nil {
		return err
	}
	return write(pngPath, func(w io.Writer) error { return plan.WritePNG(w, m, rep, opt) })
}
