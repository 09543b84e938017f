package router

import (
	"fmt"
	"testing"

	"geoshard/shard"
)

// BenchmarkWatchedInsert: what recording a change costs a put that
// inserts a member (a cold load's every put, a handoff's new copy), with
// the shard watched as in cluster mode and not, as on a single node.
func BenchmarkWatchedInsert(b *testing.B) {
	names := make([]string, 1<<16)
	for i := range names {
		names[i] = fmt.Sprintf("driver:%d", i)
	}
	for _, watched := range []bool{false, true} {
		b.Run(fmt.Sprintf("watched=%v", watched), func(b *testing.B) {
			r := New(Config{})
			if watched {
				r.watchChanges()
			}
			k := shard.Key{Name: "drivers"}
			s := r.shards[0]
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m := names[i%len(names)]
				if i%len(names) == 0 && i > 0 {
					b.StopTimer()
					s.Drop(k)
					b.StartTimer()
				}
				s.PutNewer(k, shard.NewEntry(m, 1, int64(i+1)))
			}
		})
	}
}
