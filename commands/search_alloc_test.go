package commands

import (
	"runtime"
	"strconv"
	"testing"
)

// A GEOSEARCH's own garbage (issue 10): the nearest 10 within 2 km made
// 7.3 KB in 14 allocations a search, a 5 km search 5, and a knn whose
// n-th hit ties grew a fresh slice for every hit of its circle once the
// collector had emptied the pool; what is left is the search's
// geo.Search and the key's name.
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
	// 20 drivers on one spot: the 10th and 11th nearest tie, and the
	// search collects every hit to sort them as Redis does.
	for i := range 20 {
		e.Exec(c, [][]byte{[]byte("GEOADD"), []byte("drivers"), []byte("4.91"), []byte("52.37"), []byte("stack:" + strconv.Itoa(i))})
	}
	tests := []struct {
		name     string
		lat      string
		opts     []string
		collects bool // collect garbage before each search: the sync.Pools empty
		allocs   float64
		bytes    uint64
	}{
		{"knn 2 km count 10", "52.36", []string{"BYRADIUS", "2", "km", "ASC", "COUNT", "10", "WITHDIST"}, false, 2, 1024},
		{"wide 5 km", "52.36", []string{"BYRADIUS", "5", "km"}, false, 2, 1024},
		// The pools' own arrays and the shard's walker come anew (4.6 KB),
		// the hits go into a slice kept aside (on main: 150 KB a search).
		{"tied knn after collections", "52.37", []string{"BYRADIUS", "2", "km", "ASC", "COUNT", "10"}, true, 12, 8192},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := [][]byte{[]byte("GEOSEARCH"), []byte("drivers"), []byte("FROMLONLAT"), []byte("4.91"), []byte(tc.lat)}
			for _, o := range tc.opts {
				argv = append(argv, []byte(o))
			}
			run := func() {
				if tc.collects {
					runtime.GC()
					runtime.GC()
				}
				c.W.Buf = c.W.Buf[:0]
				e.Exec(c, argv)
			}
			run() // grows the reply buffer and the pooled hit slice
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			allocs := testing.AllocsPerRun(50, run)
			runtime.ReadMemStats(&m1)
			if bytes := (m1.TotalAlloc - m0.TotalAlloc) / 51; bytes > tc.bytes {
				t.Errorf("%d B a search, want at most %d", bytes, tc.bytes)
			}
			if c.W.Buf[0] != '*' || len(c.W.Buf) < 100 {
				t.Fatalf("reply %.80q", c.W.Buf)
			}
			if allocs > tc.allocs {
				t.Fatalf("%v allocations a search, want at most %v", allocs, tc.allocs)
			}
		})
	}
}
