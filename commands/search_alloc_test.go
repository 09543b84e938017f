package commands

import (
	"strconv"
	"testing"
)

// A GEOSEARCH's own garbage (issue 10): the nearest 10 within 2 km made
// 7.3 KB in 14 allocations a search, a 5 km search 5; what is left is
// the search's geo.Search and the key's name.
func TestGeosearchGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	e := testEngine(t)
	c := e.NewClient("127.0.0.1:50003", "127.0.0.1:6379")
	f := newFleet(20_000)
	for i := range f.names {
		e.Exec(c, [][]byte{[]byte("GEOADD"), []byte("drivers"), strconv.AppendFloat(nil, f.pos[i][0], 'f', 6, 64),
			strconv.AppendFloat(nil, f.pos[i][1], 'f', 6, 64), f.names[i]})
	}
	tests := []struct {
		name   string
		opts   []string
		allocs float64
	}{
		{"knn 2 km count 10", []string{"BYRADIUS", "2", "km", "ASC", "COUNT", "10", "WITHDIST"}, 2},
		{"wide 5 km", []string{"BYRADIUS", "5", "km"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := [][]byte{[]byte("GEOSEARCH"), []byte("drivers"), []byte("FROMLONLAT"), []byte("4.91"), []byte("52.36")}
			for _, o := range tc.opts {
				argv = append(argv, []byte(o))
			}
			run := func() {
				c.W.Buf = c.W.Buf[:0]
				e.Exec(c, argv)
			}
			run() // grows the reply buffer and the pooled hit slice
			allocs := testing.AllocsPerRun(50, run)
			if c.W.Buf[0] != '*' || len(c.W.Buf) < 100 {
				t.Fatalf("reply %.80q", c.W.Buf)
			}
			if allocs > tc.allocs {
				t.Fatalf("%v allocations a search, want at most %v", allocs, tc.allocs)
			}
		})
	}
}
