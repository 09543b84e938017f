package router

// A shard whose replica's node is not live: its lease lapsed (a stall, a
// slow etcd), and until the leader places a new replica the routing table
// has none for the shard. Writing such a shard on its primary alone and
// acknowledging it loses the write when that node comes back with the
// same placement (its fill record is reported again under its new lease)
// and is promoted before the shard is written again: TestReplicaLeaseLapse.
// So such writes answer -TRYAGAIN until the leader has placed a new
// replica, as writes to a shard whose primary is down do. Deletes too
// (away_deletes.go).

import (
	"errors"

	"geoshard/shard"
)

// ReplicaGoner is a View that tells a shard whose assigned replica is on
// a node that is not live. cluster.Table is one; a View that is not has
// no such state.
type ReplicaGoner interface {
	ReplicaGone(id shard.ID) bool
}

// errReplicaGone is a write refused because the shard's replica is away.
var errReplicaGone = errors.New("shard's replica is not live; waiting for a new one")

// replicaGone reports whether view v has shard id's replica away.
func replicaGone(v View, id shard.ID) bool {
	g, ok := v.(ReplicaGoner)
	return ok && g.ReplicaGone(id)
}
