package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CONFIG SET regions swaps the region map live: a bad file changes
// nothing, a good one takes over (INFO shows its version) and every reply
// stays what it was, since replies never depend on the map.
func TestOpsReloadRegions(t *testing.T) {
	gs := startGeoshard(t, "geoshard-reload")
	rc := dialRaw(t, gs)
	for i := range 300 {
		lon, lat := 4.80+float64(i%20)*0.01, 52.30+float64(i/20)*0.01
		rc.mustDo(t, "GEOADD", "drivers", fmt.Sprint(lon), fmt.Sprint(lat), fmt.Sprintf("d%d", i))
	}
	queries := [][]string{
		{"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "5", "km", "WITHDIST", "WITHCOORD"},
		{"GEOSEARCH", "drivers", "FROMLONLAT", "4.88", "52.35", "BYRADIUS", "3", "km", "ASC", "COUNT", "7", "WITHDIST"},
		{"GEOSEARCH", "drivers", "FROMMEMBER", "d17", "BYBOX", "4", "6", "km", "DESC"},
		{"ZRANGE", "drivers", "0", "-1", "WITHSCORES"},
		{"GEOPOS", "drivers", "d0", "d299", "nope"},
	}
	before := make([]string, len(queries))
	for i, q := range queries {
		before[i] = string(rc.mustDo(t, q...))
	}
	world := infoField(t, rc, "shards", "region_map_version")

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.geojson")
	if err := os.WriteFile(bad, []byte(`{"type":"FeatureCollection","features":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := string(rc.mustDo(t, "CONFIG", "SET", "regions", bad)); !strings.HasPrefix(r, "-ERR CONFIG SET failed") {
		t.Fatalf("a map with no features was accepted: %q", r)
	}
	if v := infoField(t, rc, "shards", "region_map_version"); v != world {
		t.Fatalf("a refused map changed the version to %s", v)
	}

	good := filepath.Join(dir, "grid.geojson")
	if err := writeAdversarialMap(good, dataAreas); err != nil {
		t.Fatal(err)
	}
	if r := string(rc.mustDo(t, "CONFIG", "SET", "regions", good)); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET regions: %q", r)
	}
	if v := infoField(t, rc, "shards", "region_map_version"); v == world {
		t.Fatalf("INFO still shows the world map's version %s", v)
	}
	if r := string(rc.mustDo(t, "CONFIG", "GET", "regions")); !strings.Contains(r, good) {
		t.Fatalf("CONFIG GET regions: %q", r)
	}
	for i, q := range queries {
		if got := string(rc.mustDo(t, q...)); got != before[i] {
			t.Fatalf("%q changed with the map:\n got %q\nwant %q", q, got, before[i])
		}
	}
	rc.mustDo(t, "GEOADD", "drivers", "4.9", "52.37", "after")
	if r := string(rc.mustDo(t, "ZCARD", "drivers")); r != ":301\r\n" {
		t.Fatalf("ZCARD after the reload: %q", r)
	}
}
