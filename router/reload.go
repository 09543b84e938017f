package router

import (
	"errors"
	"maps"

	"geoshard/shard"
)

// Rebuilt returns a router on a new region map that holds every live
// member of this one, each in its new shard with its score and write
// timestamp, and the same settings and per-key position TTLs; counters
// start again, since they describe the old shards. The caller keeps every
// command out while it runs: seconds per million members
// (BenchmarkRebuilt). In cluster mode the map comes from etcd and cannot
// be swapped under one node.
func (r *Router) Rebuilt(m *shard.Map) (*Router, error) {
	if r.cl != nil {
		return nil, errors.New("cluster mode: the region map is the cluster's, not one node's")
	}
	nr := New(Config{Regions: m, PositionTTL: r.PositionTTL(), FanoutTimeout: r.FanoutTimeout(), Logger: r.log})
	r.mu.RLock()
	nr.keyTTL = maps.Clone(r.keyTTL)
	old := maps.Clone(r.keys)
	r.mu.RUnlock()
	for k, g := range old {
		r.Each(k, func(member string, score float64, stamp int64) bool {
			nr.Restore(k, member, score, stamp)
			return true
		})
		if ng := nr.key(k, false); ng != nil && g.big.Load() {
			ng.big.Store(true) // a skiplist stays one, as in Redis
		}
	}
	return nr, nil
}

// ShardMembersTotal is the sum of ShardMembers: every copy in every shard.
func (r *Router) ShardMembersTotal() int {
	n := int64(0)
	for _, c := range r.ShardMembers() {
		n += c
	}
	return int(n)
}
