// Package cluster is geoshard's cluster mode: several nodes share one
// region map's shards, agreed through etcd. A Node (node.go) keeps this
// process's lease and membership (membership.go), takes part in the
// leader election whose winner publishes the assignment of shards to
// nodes (election.go, assign.go), and turns each assignment it watches
// into a routing Table (state.go, table.go). It plugs into the single-node
// router as its router.Remote: the router asks the table whether a
// shard is served here and, if not, calls the owning peer (remote.go,
// call.go) over the node-to-node bus (bus.go), whose GEOSHARD commands
// the peer answers from its own router (internal*.go). The write, read
// and whole-key algorithms over remote shards are the router's
// (router/remote_*.go); this package moves their calls and agrees on who
// owns what.
package cluster
