package router

import (
	"io"
	"log/slog"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

// TestCellCounts: every copy is counted once, in the cell its score
// names, whatever the step, across keys and shards.
func TestCellCounts(t *testing.T) {
	m := shard.GridMap(4.6, 52.2, 5.2, 52.5, 2, 1, 200)
	r := New(Config{Regions: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	points := [][2]float64{{4.70, 52.30}, {4.7001, 52.3001}, {4.71, 52.31}, {5.1, 52.4}, {5.1, 52.4}}
	want := map[uint]map[uint64]int64{}
	for i, p := range points {
		k := shard.Key{Name: "drivers"}
		if i == 4 {
			k.Name = "other" // a second key at the same place
		}
		score := geo.Encode(p[0], p[1])
		r.Add(k, string(rune('a'+i)), score, AddFlags{})
		for _, step := range []uint{1, 10, 16, 26} {
			if want[step] == nil {
				want[step] = map[uint64]int64{}
			}
			want[step][uint64(score)>>(2*(geo.Step-step))]++
		}
	}
	for step, cells := range want {
		got := map[uint64]int64{}
		total := int64(0)
		for _, c := range r.CellCounts(step) {
			got[c.Cell] += c.Count
			total += c.Count
		}
		if total != int64(len(points)) || len(got) != len(cells) {
			t.Errorf("step %d: %d copies in %d cells, want %d in %d", step, total, len(got), len(points), len(cells))
		}
		for cell, n := range cells {
			if got[cell] != n {
				t.Errorf("step %d cell %x: %d, want %d", step, cell, got[cell], n)
			}
		}
	}
}
