package commands

import (
	"crypto/sha1"
	"encoding/hex"
	"net"
	"strconv"
)

// Cluster mode's node-to-node commands (GEOSHARD PUT, SEARCH...) are
// served on the cluster bus (cluster/bus.go), not here: through the
// engine, a call from one node to another made while holding the
// keyspace lock could wait on a node waiting for its own lock. What the
// client port adds for cluster mode is CLUSTER SLOTS/SHARDS.
func init() {
	register(
		&command{name: "cluster|slots", arity: 2, flags: []string{"loading", "stale"}, handler: clusterSlots},
		&command{name: "cluster|shards", arity: 2, flags: []string{"loading", "stale"}, handler: clusterShards},
	)
}

// clusterSlots: CLUSTER SLOTS. In cluster mode every node serves every
// key, so a cluster-aware client is told that all 16384 slots live on the
// node it asked, and keeps talking to it. A single node answers as a
// standalone Redis does.
func clusterSlots(e *Engine, c *Client, args [][]byte) {
	host, port, id, ok := e.self(c)
	if !ok {
		c.W.Error("ERR This instance has cluster support disabled")
		return
	}
	c.W.Array(1)
	c.W.Array(3)
	c.W.Int(0)
	c.W.Int(16383)
	c.W.Array(3)
	c.W.BulkString(host)
	c.W.Int(port)
	c.W.BulkString(id)
}

// clusterShards: CLUSTER SHARDS, with the same single shard.
func clusterShards(e *Engine, c *Client, args [][]byte) {
	host, port, id, ok := e.self(c)
	if !ok {
		c.W.Error("ERR This instance has cluster support disabled")
		return
	}
	c.W.Array(1)
	c.W.Map(2)
	c.W.BulkString("slots")
	c.W.Array(2)
	c.W.Int(0)
	c.W.Int(16383)
	c.W.BulkString("nodes")
	c.W.Array(1)
	c.W.Map(6)
	c.W.BulkString("id")
	c.W.BulkString(id)
	c.W.BulkString("port")
	c.W.Int(port)
	c.W.BulkString("ip")
	c.W.BulkString(host)
	c.W.BulkString("role")
	c.W.BulkString("master")
	c.W.BulkString("replication-offset")
	c.W.Int(0)
	c.W.BulkString("health")
	c.W.BulkString("online")
}

// self names this node as a client should reach it: the address it
// advertises, and a 40-character id derived from the node id.
func (e *Engine) self(c *Client) (host string, port int64, id string, ok bool) {
	st, ok := e.Router().ClusterStatus()
	if !ok {
		return "", 0, "", false
	}
	h, p, err := net.SplitHostPort(st.Advertise)
	if err != nil {
		return "", 0, "", false
	}
	n, _ := strconv.ParseInt(p, 10, 64)
	sum := sha1.Sum([]byte(st.NodeID))
	return h, n, hex.EncodeToString(sum[:]), true
}
