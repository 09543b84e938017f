package cluster

import (
	"geoshard/shard"
)

// Table is an immutable routing table: for one published assignment, where
// each shard lives. The router swaps a whole new one in on every change,
// so a command sees one consistent table from start to end.
type Table struct {
	Version int64    // the assignment's version; internal commands carry it
	Self    string   // this node's id
	Owner   []string // node id per shard; "" while unassigned
	local   []bool   // the shard is served in this process
	peers   []*peer  // per shard: the remote owner, nil when local or down
	nodes   []*peer  // every live node but this one, once each
}

// newTable builds the table for an assignment. live maps the ids of live
// nodes to their peers; an owner that is not live leaves its shards down.
func newTable(version int64, self string, owner []string, live map[string]*peer) *Table {
	t := &Table{Version: version, Self: self, Owner: owner,
		local: make([]bool, len(owner)), peers: make([]*peer, len(owner))}
	for i, o := range owner {
		switch {
		case o == "":
		case o == self:
			t.local[i] = true
		default:
			t.peers[i] = live[o]
		}
	}
	for id, p := range live {
		if id != self {
			t.nodes = append(t.nodes, p)
		}
	}
	return t
}

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

// byNode groups shard ids by the node holding them: the local ones, one
// group per remote node, and those that are down.
func (t *Table) byNode(ids []shard.ID) (local []shard.ID, remote map[*peer][]shard.ID, down []shard.ID) {
	remote = make(map[*peer][]shard.ID)
	for _, id := range ids {
		switch {
		case t.Local(id):
			local = append(local, id)
		case t.peers[id] != nil:
			remote[t.peers[id]] = append(remote[t.peers[id]], id)
		default:
			down = append(down, id)
		}
	}
	return local, remote, down
}

func shardID(i int) shard.ID { return shard.ID(i) }
