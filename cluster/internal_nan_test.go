package cluster

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"geoshard/router"
	"geoshard/shard"
)

// TestInternalPutNaNScore: a peer's PUT or PUTMANY of a NaN score is
// refused and leaves the shard's order whole. Stored, the NaN broke the
// score tree's order (it compares neither below nor above), and moving
// the other members afterwards lost one of them from ranges and counts:
// 39 of 40 counted.
func TestInternalPutNaNScore(t *testing.T) {
	k := shard.Key{Name: "k"}
	nan := shard.NewEntry("bad", math.NaN(), 1<<40)
	for _, c := range []struct {
		name string
		bad  func(*router.Router, *Table) *wordReplier
	}{
		{"PUT", func(r *router.Router, tb *Table) *wordReplier {
			return serveBounded(t, r, tb, "geoshard.put", "0 0 k bad nan 99")
		}},
		{"PUTMANY", func(r *router.Router, tb *Table) *wordReplier {
			w := &wordReplier{}
			word := appendPutsWire(nil, []shard.ID{0}, []shard.Entry{nan})
			internalPutMany(r, tb, &parser{args: [][]byte{[]byte("0"), []byte("k"), word}}, w)
			return w
		}},
	} {
		r := router.New(router.Config{})
		tb := testTable(3)
		stamp := 1
		put := func(m string, score int) {
			stamp++
			if w := serveBounded(t, r, tb, "geoshard.put", fmt.Sprintf("0 0 k %s %d %d", m, score, stamp)); w.err != "" {
				t.Fatalf("%s: put %s: %s", c.name, m, w.err)
			}
		}
		for i := range 40 {
			put(fmt.Sprintf("m%02d", i), i*10)
			if i == 20 {
				if w := c.bad(r, tb); !strings.Contains(w.err, "NaN") && !strings.Contains(w.err, "malformed") {
					t.Errorf("%s of a NaN score answered %q (%d), want an error", c.name, w.err, w.n)
				}
			}
		}
		for i := range 40 {
			put(fmt.Sprintf("m%02d", i), 400-i*10)
		}
		es, _, _ := r.ScanLocal([]shard.ID{0}, k, router.Bound{Score: math.Inf(-1)}, router.Bound{Score: math.Inf(1)}, false, 0, 0, 0)
		if len(es) != 40 {
			t.Errorf("%s: a range of every score holds %d members, want 40", c.name, len(es))
		}
		for i := 1; i < len(es); i++ {
			if es[i-1].Score > es[i].Score {
				t.Errorf("%s: range out of order at %d: %v then %v", c.name, i, es[i-1], es[i])
			}
		}
		if w := serveBounded(t, r, tb, "geoshard.count", "0 k 0 -inf 0 +inf 0 0"); w.n != 40 {
			t.Errorf("%s: COUNT of every score = %d, want 40", c.name, w.n)
		}
	}
}
