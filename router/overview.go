package router

import "context"

// Overview is the whole cluster as one node sees it now, for an operator
// (GEOSHARD NODES, /metrics): every member, who leads, and per shard its
// owner, state and size.
type Overview struct {
	Self         string // this node's id
	Leader       string // the elected node's id; "" while unknown
	TableVersion int64
	Members      []MemberView // by id
	Shards       []ShardView  // by shard id
}

// MemberView is one live member: registered under a lease in etcd.
type MemberView struct {
	ID, Addr, Bus string // node id, client address, bus address
	Self          bool
	// Up: the node answered its last health check on the bus (this node
	// always is); Problem says why not.
	Up      bool
	Problem string
	Shards  int // shards assigned to it
}

// Shard states an overview reports.
const (
	ShardUp          = "up"          // its owner is live and answers
	ShardDown        = "down"        // its owner's lease is gone: reassignment pending
	ShardUnreachable = "unreachable" // its owner is registered but fails health checks
	ShardUnassigned  = "unassigned"  // no assignment names it yet
)

// ShardView is one shard of the region map.
type ShardView struct {
	Name    string
	Primary string // owning node id; "" when unassigned
	Replica string // node id of its replica; "" for none
	State   string // ShardUp, ShardDown, ShardUnreachable or ShardUnassigned
	Members int64  // copies the owner holds; -1 when not asked or no answer
}

// ClusterOverview returns the cluster as this node sees it; with counts,
// it asks every other node for its shards' sizes (bounded by ctx). ok is
// false in single-node mode.
func (r *Router) ClusterOverview(ctx context.Context, counts bool) (o Overview, ok bool) {
	if r.cl == nil {
		return Overview{}, false
	}
	return r.cl.Overview(ctx, counts), true
}
