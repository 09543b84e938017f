package commands

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
	"geoshard/snapshot"
)

// TestLoadInParts: keys whose members reach the placer in one part, at a
// part's edge and across several parts all load whole, each member with
// its saved score; a member saved twice, in different parts, keeps its
// last copy; keys before and after a big one are not mixed with it.
func TestLoadInParts(t *testing.T) {
	tests := []struct {
		name string
		n    int  // members saved
		dup  bool // member 3 saved again at the end, with another score
	}{
		{"one", 1, false},
		{"part less one", placerPart - 1, false},
		{"one part", placerPart, false},
		{"one part and one", placerPart + 1, false},
		{"parts and a duplicate", 2*placerPart + 7, true},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	w, err := snapshot.Create(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	score := func(key, i int) float64 {
		return geo.Encode(float64(i%3600)/10-180, float64(key*10+i%700)/10-80)
	}
	w.DB(0)
	for key, tc := range tests {
		w.Zset("k"+strconv.Itoa(key), 0)
		for i := range tc.n {
			w.Member("m"+strconv.Itoa(i), score(key, i), int64(i+1))
		}
		if tc.dup {
			w.Member("m3", score(key, 4), int64(tc.n+1))
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	e := New(router.New(router.Config{}), persistSession(t, dir, "0").e.config)
	st, err := e.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != int64(len(tests)) {
		t.Fatalf("loaded %d keys, want %d", st.Keys, len(tests))
	}
	for key, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := shard.Key{Name: "k" + strconv.Itoa(key)}
			got := map[string]float64{}
			e.Router().Each(k, func(m string, s float64, _ int64) bool {
				got[m] = s
				return true
			})
			if len(got) != tc.n {
				t.Fatalf("%d members, want %d", len(got), tc.n)
			}
			for i := range tc.n {
				want := score(key, i)
				if tc.dup && i == 3 {
					want = score(key, 4)
				}
				if s, ok := got["m"+strconv.Itoa(i)]; !ok || s != want {
					t.Fatalf("m%d: score %v (%v), want %v", i, s, ok, want)
				}
			}
		})
	}
}
