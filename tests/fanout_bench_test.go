package tests

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRandomStreamFineMap sends the differential tests' random
// command stream (the whole GEO and sorted-set surface, errors included)
// to geoshard on its embedded map and on the fine map, alternating batches
// so that both see the same machine load, and reports each one's rate
// and fine/default (issue 11 sets it at >= 0.5; it was about 190
// commands/s on a 1,541-area map). One connection, batches of 100.
func BenchmarkRandomStreamFineMap(b *testing.B) {
	mapPath := filepath.Join(b.TempDir(), "fine.geojson")
	if err := writeFineMap(mapPath, dataAreas); err != nil {
		b.Fatal(err)
	}
	def := dialRaw(b, startGeoshardPlain(b, "geoshard-default", "--position-ttl", "0"))
	fine := dialRaw(b, startGeoshardPlain(b, "geoshard-fine", "--regions", mapPath, "--position-ttl", "0"))
	var took [2]time.Duration
	sent := 0
	for b.Loop() {
		gen := newCmdGen(uint64(sent))
		batch := make([][]string, 100)
		for i := range batch {
			batch[i] = gen.next()
		}
		for i, rc := range []*rawConn{def, fine} {
			start := time.Now()
			if _, err := rc.pipeline(batch); err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
		}
		sent += len(batch)
	}
	b.ReportMetric(float64(sent)/took[0].Seconds(), "default-cmds/s")
	b.ReportMetric(float64(sent)/took[1].Seconds(), "fine-cmds/s")
	b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "fine/default")
}
