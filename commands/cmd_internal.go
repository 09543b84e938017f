package commands

// Cluster mode's node-to-node commands (GEOSHARD PUT, SEARCH...) are
// served on the cluster bus (cluster/bus.go), not here: through the
// engine, a call from one node to another made while holding the
// keyspace lock could wait on a node waiting for its own lock.
//
// Redis Cluster's commands answer, on every node, as a standalone Redis
// 7.0 does: "cluster support disabled". geoshard's cluster has no hash
// slots (any node answers any key, and one key spans every node), so a
// cluster-aware client has nothing to route by; told this, redis-py's
// RedisCluster and go-redis's ClusterClient stop with that message rather
// than half-work, and plain clients connect to any node (docs/CLUSTER.md).
func init() {
	// Redis 7.0's CLUSTER subcommands, arities and flags (COMMAND INFO).
	register(
		&command{name: "cluster|addslots", arity: -3, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|addslotsrange", arity: -4, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|bumpepoch", arity: 2, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|count-failure-reports", arity: 3, flags: []string{"admin", "stale"}, handler: clusterDisabled},
		&command{name: "cluster|countkeysinslot", arity: 3, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|delslots", arity: -3, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|delslotsrange", arity: -4, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|failover", arity: -2, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|flushslots", arity: 2, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|forget", arity: 3, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|getkeysinslot", arity: 4, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|help", arity: 2, flags: []string{"loading", "stale"}, handler: clusterDisabled},
		&command{name: "cluster|info", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|keyslot", arity: 3, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|links", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|meet", arity: -4, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|myid", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|nodes", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|replicas", arity: 3, flags: []string{"admin", "stale"}, handler: clusterDisabled},
		&command{name: "cluster|replicate", arity: 3, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|reset", arity: -2, flags: []string{"admin", "noscript", "stale"}, handler: clusterDisabled},
		&command{name: "cluster|saveconfig", arity: 2, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|set-config-epoch", arity: 3, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|setslot", arity: -4, flags: []string{"admin", "stale", "no_async_loading"}, handler: clusterDisabled},
		&command{name: "cluster|shards", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "cluster|slaves", arity: 3, flags: []string{"admin", "stale"}, handler: clusterDisabled},
		&command{name: "cluster|slots", arity: 2, flags: []string{"stale"}, handler: clusterDisabled},
		&command{name: "readonly", arity: 1, flags: []string{"loading", "stale", "fast"}, handler: clusterDisabled, inert: true},
		&command{name: "readwrite", arity: 1, flags: []string{"loading", "stale", "fast"}, handler: clusterDisabled, inert: true},
		&command{name: "asking", arity: 1, flags: []string{"fast"}, handler: clusterDisabled, inert: true},
	)
}

func clusterDisabled(e *Engine, c *Client, args [][]byte) {
	c.W.Error("ERR This instance has cluster support disabled")
}
