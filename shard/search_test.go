package shard

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// searchBrute answers a search of the cells in mask the obvious way:
// each cell in plan order, every member in sorted-set order, Match.
func searchBrute(es []Entry, q *geo.Search, mask CellMask, limit int) []string {
	sorted := slices.Clone(es)
	slices.SortFunc(sorted, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.Member, b.Member))
	})
	var out []string
	for i, c := range q.Cells {
		if mask != AllCells && mask&(1<<i) == 0 {
			continue
		}
		for _, e := range sorted {
			if e.Score < c.Min || e.Score >= c.Max {
				continue
			}
			lon, lat := geo.Decode(e.Score)
			if _, ok := q.Match(lon, lat); ok {
				if out = append(out, e.Member); len(out) == limit {
					return out
				}
			}
		}
	}
	return out
}

// A search of some cells of the plan finds, in Redis's order, what a scan
// of those cells finds, whether the shard is dense (ranges classified
// and split) or holds a few members per cell (tested one by one); a
// skipped cell costs nothing and hides only its own members (issue 11).
func TestSearchCells(t *testing.T) {
	k := Key{Name: "k"}
	densities := []struct {
		name     string
		n        int
		lon, lat float64 // south-west corner of the members' square
		side     float64 // degrees
	}{
		{"sparse", 40, -10, 35, 40},
		{"few-per-cell", 200, 3, 51, 4},
		{"dense", 5000, 4.5, 52, 0.8},
	}
	shapes := []geo.Shape{
		{Radius: 2, Unit: 1000}, {Radius: 50, Unit: 1000}, {Radius: 500, Unit: 1000},
		{Box: true, Width: 80, Height: 30, Unit: 1000},
		{Box: true, Width: 40000, Height: 20000, Unit: 1000},
	}
	for _, d := range densities {
		t.Run(d.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(d.n), 5))
			s := New()
			var es []Entry
			for i := range d.n {
				lon, lat := d.lon+rng.Float64()*d.side, d.lat+rng.Float64()*d.side
				if i%7 == 0 && i > 0 { // shared scores: ties broken by member
					lon, lat = geo.Decode(es[i-1].Score)
				}
				e := NewEntry(fmt.Sprintf("m%d", i), geo.Encode(lon, lat), 1)
				es = append(es, e)
				s.Put(k, e)
			}
			for _, shape := range shapes {
				for i := range 4 {
					q := geo.NewSearch(d.lon+rng.Float64()*d.side, d.lat+rng.Float64()*d.side, shape)
					masks := []CellMask{AllCells, 0, 1, CellMask(rng.Uint32() & 0x1ff), 1 << (len(q.Cells) - 1)}
					for _, mask := range masks {
						for _, limit := range []int{0, 3} {
							got := []string{}
							for _, h := range s.SearchCells(k, q, mask, 0, limit, nil) {
								got = append(got, h.Member)
								if h.Cell < 0 || h.Cell >= len(q.Cells) || mask != AllCells && mask&(1<<h.Cell) == 0 {
									t.Fatalf("hit %s in cell %d, mask %b", h.Member, h.Cell, mask)
								}
							}
							want := searchBrute(es, q, mask, limit)
							if !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
								t.Fatalf("%+v #%d mask %b limit %d: got %d hits %v, want %d %v",
									shape, i, mask, limit, len(got), head(got), len(want), head(want))
							}
						}
					}
				}
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }
