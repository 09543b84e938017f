package router

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

type saved struct {
	score float64
	stamp int64
}

func dump(r *Router, k shard.Key) map[string]saved {
	out := map[string]saved{}
	r.Each(k, func(m string, score float64, stamp int64) bool {
		out[m] = saved{score, stamp}
		return true
	})
	return out
}

// TestEachRestore copies a key into a fresh router, member by member
// (Restore) and whole (RestoreKey), and expects the same members, scores,
// stamps, order and encoding quirks.
func TestEachRestore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 3, 128, 129, 1000, 20000} {
		for _, whole := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/whole=%v", n, whole), func(t *testing.T) { testEachRestore(t, rng, n, whole) })
		}
	}
}

func testEachRestore(t *testing.T, rng *rand.Rand, n int, whole bool) {
	src := New(Config{})
	for i := range n {
		score := geo.Encode(rng.Float64()*360-180, rng.Float64()*170-85)
		src.Add(drivers, "m"+strconv.Itoa(i), score, AddFlags{})
	}
	if n > 128 {
		src.Add(drivers, "negzero", math.Copysign(0, -1), AddFlags{})
	}
	before := dump(src, drivers)
	if len(before) != src.Card(drivers) {
		t.Fatalf("Each saw %d members, Card says %d", len(before), src.Card(drivers))
	}
	dst := New(Config{})
	var saved []Saved
	for m, s := range before {
		if whole {
			saved = append(saved, Saved{m, s.score, s.stamp})
		} else {
			dst.Restore(drivers, m, s.score, s.stamp)
		}
	}
	dst.RestoreKey(drivers, saved)
	if after := dump(dst, drivers); !reflect.DeepEqual(before, after) {
		t.Fatalf("restored key differs")
	}
	all := Bound{Score: math.Inf(1)}
	lo := Bound{Score: math.Inf(-1)}
	if a, b := src.Range(drivers, lo, all, false, 0, -1), dst.Range(drivers, lo, all, false, 0, -1); !reflect.DeepEqual(a, b) {
		t.Fatalf("ranges differ:\n%v\n%v", a, b)
	}
	if n > 128 {
		s, _ := dst.Score(drivers, "negzero")
		if !math.Signbit(s) {
			t.Fatal("-0 of a big key came back as 0")
		}
	}
	// A write after the restore is newer than every restored one.
	dst.Add(drivers, "late", 0, AddFlags{})
	late := dump(dst, drivers)["late"].stamp
	for m, s := range before {
		if s.stamp >= late {
			t.Fatalf("%s restored with stamp %d, not older than a later write (%d)", m, s.stamp, late)
		}
	}
}

// TestRestoreKeyMerges: a member saved twice keeps its last copy, and a
// key that already has members takes each saved one as Restore would.
func TestRestoreKeyMerges(t *testing.T) {
	ams, rtm := geo.Encode(4.90, 52.37), geo.Encode(4.48, 51.92)
	tests := []struct {
		name  string
		first []Saved // restored whole into an empty key
		then  []Saved // restored whole afterwards
		want  map[string]saved
	}{
		{"twice in one save", []Saved{{"a", ams, 1}, {"b", ams, 2}, {"a", rtm, 3}}, nil,
			map[string]saved{"a": {rtm, 3}, "b": {ams, 2}}},
		{"into a key with members", []Saved{{"a", ams, 1}, {"b", ams, 2}}, []Saved{{"a", rtm, 3}, {"c", rtm, 4}},
			map[string]saved{"a": {rtm, 3}, "b": {ams, 2}, "c": {rtm, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Config{})
			r.RestoreKey(drivers, tc.first)
			r.RestoreKey(drivers, tc.then)
			if got := dump(r, drivers); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("restored %v, want %v", got, tc.want)
			}
			if got := r.ShardMembersTotal(); got != len(tc.want) {
				t.Fatalf("%d copies in the shards, want %d", got, len(tc.want))
			}
			if got := r.Card(drivers); got != len(tc.want) {
				t.Fatalf("Card %d, want %d", got, len(tc.want))
			}
		})
	}
}

// TestEachSkipsExpired: a member past its position TTL is not saved.
func TestEachSkipsExpired(t *testing.T) {
	r := New(Config{PositionTTL: time.Hour})
	r.Restore(drivers, "old", 1, time.Now().Add(-2*time.Hour).UnixNano())
	r.Restore(drivers, "new", 1, time.Now().UnixNano())
	got := dump(r, drivers)
	if _, ok := got["old"]; ok || len(got) != 1 {
		t.Fatalf("Each returned %v", got)
	}
}

func TestKeyTTLs(t *testing.T) {
	r := New(Config{})
	r.SetKeyTTL(shard.Key{DB: 1, Name: "a"}, time.Minute)
	r.SetKeyTTL(shard.Key{DB: 2, Name: "b"}, time.Second)
	if got := r.KeyTTLs(1); !reflect.DeepEqual(got, map[string]time.Duration{"a": time.Minute}) {
		t.Fatalf("KeyTTLs(1) = %v", got)
	}
}
