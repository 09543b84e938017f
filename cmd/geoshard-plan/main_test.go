package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"geoshard/shard"
)

// TestCommands runs synth, propose and report as a user would, in order.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	pings, searches := filepath.Join(dir, "pings.csv"), filepath.Join(dir, "searches.csv")
	proposed, grid := filepath.Join(dir, "proposed.geojson"), filepath.Join(dir, "grid.geojson")
	svg, png := filepath.Join(dir, "proposed.svg"), filepath.Join(dir, "proposed.png")

	mustRun(t, "synth", "--out", dir, "--drivers", "40", "--duration", "2m", "--searches-per-sec", "3")
	out := mustRun(t, "propose", "--pings", pings, "--searches", searches, "--shards", "3",
		"--out", proposed, "--svg", svg, "--png", png, "--naive-out", grid)
	if !strings.Contains(out, "equal grid, 3 cells") || !strings.Contains(out, "area-1 | area-") {
		t.Errorf("propose output:\n%s", out)
	}
	m, err := shard.LoadMapFile(proposed)
	if err != nil || m.Len() != 4 {
		t.Fatalf("proposed map: %v, %v", m, err)
	}
	for _, p := range []string{svg, png} {
		if st, err := os.Stat(p); err != nil || st.Size() < 200 {
			t.Errorf("%s: %v", p, err)
		}
	}
	out = mustRun(t, "report", "--pings", pings, "--searches", searches, "--map", proposed, "--map", grid, "--svg-dir", dir)
	for _, want := range []string{"proposed.geojson", "grid.geojson", "== grid.geojson", "cell-0-0 | cell-1-0", "fan-out %"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "grid.svg")); err != nil {
		t.Error(err)
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
		{[]string{"synth", "--out", dir, "--drivers", "0"}, "drivers"},
		{[]string{"report", "stray"}, "unexpected argument"},
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
