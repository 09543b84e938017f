package shard

import (
	"math"
	"strings"
	"testing"
)

// TestWatch: the watcher hears a member gaining a copy here or losing it,
// through every put a cluster write lands by, and not a copy updated
// where it is, a put refused as older, or a delete refused as newer.
func TestWatch(t *testing.T) {
	k := Key{Name: "k"}
	cases := []struct {
		name  string
		have  int64 // stamp of the copy here; 0: none
		op    func(s *Shard)
		heard bool
	}{
		{"PutNewer inserts", 0, func(s *Shard) { s.PutNewer(k, NewEntry("m", 1, 100)) }, true},
		{"PutNewer updates", 50, func(s *Shard) { s.PutNewer(k, NewEntry("m", 1, 100)) }, false},
		{"PutNewer older", 150, func(s *Shard) { s.PutNewer(k, NewEntry("m", 1, 100)) }, false},
		{"PutNewerHash inserts", 0, func(s *Shard) { s.PutNewerHash(k, NewEntry("m", 1, 100), Hash("m")) }, true},
		{"PutNewerHash updates", 50, func(s *Shard) { s.PutNewerHash(k, NewEntry("m", 1, 100), Hash("m")) }, false},
		{"PutIf inserts", 0, func(s *Shard) { s.PutIf(k, NewEntry("m", 1, 100), -50) }, true},
		{"PutIf updates", 50, func(s *Shard) { s.PutIf(k, NewEntry("m", 1, 100), 50) }, false},
		{"PutIf refused", 0, func(s *Shard) { s.PutIf(k, NewEntry("m", 1, 100), 50) }, false},
		{"Delete removes", 50, func(s *Shard) { s.Delete(k, "m", 60) }, true},
		{"Delete of a newer copy", 50, func(s *Shard) { s.Delete(k, "m", 40) }, false},
		{"Delete of none", 0, func(s *Shard) { s.Delete(k, "m", 60) }, false},
		{"Delete of the member", 50, func(s *Shard) { s.Delete(k, "m", math.MaxInt64) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			if c.have != 0 {
				s.Put(k, NewEntry("m", 2, c.have))
			}
			var heard []string
			s.Watch(func(got Key, e Entry, left bool) {
				if got != k {
					t.Errorf("heard key %v, want %v", got, k)
				}
				if isDelete := strings.HasPrefix(c.name, "Delete"); left != isDelete {
					t.Errorf("heard left %v", left)
				}
				heard = append(heard, e.Member)
			})
			c.op(s)
			if want := map[bool]int{true: 1, false: 0}[c.heard]; len(heard) != want || want == 1 && heard[0] != "m" {
				t.Fatalf("heard %v, want %d of m", heard, want)
			}
		})
	}
}
