package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clusterGridMap writes a side x side grid of shards over the box of
// clusterMap, so clusterGen's border points fall near borders of both.
func clusterGridMap(t *testing.T, side int) string {
	t.Helper()
	var feats []string
	w, h := 0.45/float64(side), 0.21/float64(side)
	for i := 0; i < side; i++ {
		for j := 0; j < side; j++ {
			x0, y0 := 4.70+w*float64(i), 52.25+h*float64(j)
			x1, y1 := x0+w, y0+h
			feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"shard":"g-%d-%d"},`+
				`"geometry":{"type":"Polygon","coordinates":[[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]]}}`,
				i, j, x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
		}
	}
	doc := fmt.Sprintf(`{"type":"FeatureCollection","properties":{"margin":200,"version":"grid-%d"},"features":[%s]}`,
		side, strings.Join(feats, ","))
	path := filepath.Join(t.TempDir(), "grid.geojson")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tableStill waits until the routing table has not changed for quiet:
// once replicas are filled the leader still evens out their counts, two
// moves per rebalancing step, and every move is a new table. A stream
// that ran meanwhile would compare answers given across table changes,
// which is TestClusterSearchDuringRebalance's subject, not this test's.
func tableStill(t *testing.T, tc *testCluster, quiet, timeout time.Duration) {
	t.Helper()
	begin, since, last := time.Now(), time.Now(), ""
	for time.Since(begin) < timeout {
		v := tableVersions(t, tc)
		if v != last {
			last, since = v, time.Now()
		} else if time.Since(since) >= quiet {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the routing table still changes after %v (versions %s)", timeout, last)
}
