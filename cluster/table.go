package cluster

import (
	"geoshard/router"
	"geoshard/shard"
)

// Table is an immutable routing table: for one published assignment, where
// each shard lives. The router swaps a whole new one in on every change,
// so a command sees one consistent table from start to end.
type Table struct {
	Version int64         // the assignment's version; internal commands carry it
	Self    string        // this node's id
	Owner   []string      // node id per shard; "" while unassigned
	local   []bool        // the shard is served in this process
	peers   []router.Peer // per shard: the remote owner, nil when local or down
	nodes   []router.Peer // every live node but this one, once each
}

// newTable builds the table for an assignment. live maps the ids of live
// nodes to their peers; an owner that is not live leaves its shards down.
// Calls through the table carry its version and the cluster password.
func newTable(version int64, self string, owner []string, live map[string]*peer, pass string) *Table {
	t := &Table{Version: version, Self: self, Owner: owner,
		local: make([]bool, len(owner)), peers: make([]router.Peer, len(owner))}
	calls := make(map[string]*call, len(live))
	for id, p := range live {
		if id != self {
			c := &call{p: p, ver: version, pass: pass}
			calls[id] = c
			t.nodes = append(t.nodes, c)
		}
	}
	for i, o := range owner {
		switch c := calls[o]; {
		case o == "":
		case o == self:
			t.local[i] = true
		case c != nil:
			t.peers[i] = c
		}
	}
	return t
}

// Peer returns the node serving a remote shard, nil when local or down.
func (t *Table) Peer(id shard.ID) router.Peer {
	if int(id) >= len(t.peers) {
		return nil
	}
	return t.peers[id]
}

// Nodes lists every other live node once.
func (t *Table) Nodes() []router.Peer { return t.nodes }

// Local reports whether the shard is served in this process.
func (t *Table) Local(id shard.ID) bool { return int(id) < len(t.local) && t.local[id] }

// Down reports whether no live node holds the shard.
func (t *Table) Down(id shard.ID) bool {
	return int(id) < len(t.local) && !t.local[id] && t.peers[id] == nil
}

// LocalShards counts the shards served here.
func (t *Table) LocalShards() int {
	n := 0
	for _, l := range t.local {
		if l {
			n++
		}
	}
	return n
}

// DownShards counts the shards no live node holds.
func (t *Table) DownShards() int {
	n := 0
	for i := range t.local {
		if t.Down(shard.ID(i)) {
			n++
		}
	}
	return n
}

func shardID(i int) shard.ID { return shard.ID(i) }
