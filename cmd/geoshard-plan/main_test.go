package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"geoshard/shard"
)

// TestCommands runs synth, propose and report as a user would, in order.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	pings, searches := filepath.Join(dir, "pings.csv"), filepath.Join(dir, "searches.csv")
	// --out and the pictures go to directories that do not exist yet.
	proposed, grid := filepath.Join(dir, "new", "proposed.geojson"), filepath.Join(dir, "grid.geojson")
	svg, png := filepath.Join(dir, "pics", "proposed.svg"), filepath.Join(dir, "pics", "proposed.png")

	mustRun(t, "synth", "--out", dir, "--drivers", "40", "--duration", "2m", "--searches-per-sec", "3")
	out := mustRun(t, "propose", "--pings", pings, "--searches", searches, "--shards", "3",
		"--out", proposed, "--svg", svg, "--png", png, "--naive-out", grid)
	for _, want := range []string{"equal grid, 3 cells", "area-1|area-"} {
		if !strings.Contains(out, want) {
			t.Errorf("propose output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "verdict: ") && !strings.Contains(out, "WARNING: ") {
		t.Errorf("propose output has no verdict against the grid:\n%s", out)
	}
	m, err := shard.LoadMapFile(proposed)
	if err != nil || m.Len() != 4 {
		t.Fatalf("proposed map: %v, %v", m, err)
	}
	for _, p := range []string{svg, png, filepath.Join(dir, "pics", "proposed-grid.svg"), filepath.Join(dir, "pics", "proposed-grid.png")} {
		if st, err := os.Stat(p); err != nil || st.Size() < 200 {
			t.Errorf("%s: %v", p, err)
		}
	}
	out = mustRun(t, "report", "--pings", pings, "--searches", searches, "--map", proposed, "--map", grid, "--svg-dir", dir)
	for _, want := range []string{"proposed.geojson", "grid.geojson", "== grid.geojson", "cell-0-0|cell-1-0", "fan-out %"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "grid.svg")); err != nil {
		t.Error(err)
	}

	// Refine one shard of the grid, counting the drivers that would move.
	refined := filepath.Join(dir, "refined.geojson")
	out = mustRun(t, "propose", "--pings", pings, "--searches", searches, "--shards", "2", "--out", refined,
		"--current", grid, "--split", "cell-0-0")
	for _, want := range []string{"moving from grid.geojson: ", "grid.geojson (current)", "cell-0-0-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("refine output lacks %q:\n%s", want, out)
		}
	}
	if m, err := shard.LoadMapFile(refined); err != nil || m.Len() != 5 {
		t.Errorf("refined map: %v, %v", m, err)
	}

	// Every shard count, each next to its grid, with a verdict.
	out = mustRun(t, "sweep", "--pings", pings, "--searches", searches, "--max-shards", "4")
	for _, n := range []string{"2", "3", "4"} {
		if !regexp.MustCompile(`(?m)^ +` + n + ` +\d`).MatchString(out) {
			t.Errorf("sweep lacks the line for %s shards:\n%s", n, out)
		}
	}
	if strings.Count(out, "better or equal")+strings.Count(out, "loses on")+strings.Count(out, "WORSE") != 3 {
		t.Errorf("sweep has not one verdict per shard count:\n%s", out)
	}

	// Two maps with one base name get pictures of their own.
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	data, _ := os.ReadFile(grid)
	os.WriteFile(filepath.Join(other, "grid.geojson"), data, 0o644)
	pics := filepath.Join(dir, "same")
	mustRun(t, "report", "--pings", pings, "--map", grid, "--map", filepath.Join(other, "grid.geojson"), "--svg-dir", pics)
	for _, name := range []string{"grid.svg", "grid-2.svg", "grid.png", "grid-2.png"} {
		if _, err := os.Stat(filepath.Join(pics, name)); err != nil {
			t.Error(err)
		}
	}
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("time,lon,lat\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"report", "--pings", bad}, "at least one --map"},
		{[]string{"report", "--pings", bad, "--map", "x.geojson"}, "header"},
		{[]string{"propose", "--pings", bad, "--out", "x"}, "--shards"},
		{[]string{"synth"}, "--out"},
		{[]string{"sweep", "--pings", bad, "--max-shards", "1"}, "max-shards"},
		{[]string{"synth", "--out", dir, "--drivers", "0"}, "drivers"},
		{[]string{"report", "stray"}, "unexpected argument"},
		{[]string{"propose", "--pings", bad, "--out", "x", "--shards", "4", "--tolerance", "2"}, "tolerance"},
		{[]string{"propose", "--pings", bad, "--out", "x", "--shards", "4", "--cell", "0.5"}, "cell"},
		{[]string{"propose", "--pings", bad, "--out", "x", "--shards", "4", "--margin", "-3"}, "margin"},
		{[]string{"propose", "--pings", bad, "--out", "x", "--shards", "4", "--shape", "hex"}, "shape"},
		{[]string{"propose", "--pings", bad, "--out", "x", "--shards", "2", "--split", "a"}, "--current"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		err := run(c.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}
