package cluster

// Holders that may come back. A node's member record goes with its lease,
// and a lease lapses under a stall or a slow etcd as well as on a crash;
// the node registers again within moments, its copies intact. A shard
// whose primary and replica are both missing would go to the least
// loaded node, empty, and the holder coming back would then refill from
// it: TestClusterReplicaKill lost all 20,000 members of one shard that
// way (kill -9 of its primary while the replica's lease lapsed, load 13).
// So the leader waits, two lease TTLs at most, for a holder that went
// missing recently, as it waits after an etcd outage (settling).

import (
	"slices"
	"time"
)

// noteMembers records when members went missing and forgets those back;
// the caller holds n.mu and passes the live ids before a change.
func (n *Node) noteMembers(before map[string]string) {
	if n.goneAt == nil {
		n.goneAt = map[string]time.Time{}
	}
	for id := range before {
		if _, ok := n.members[id]; !ok {
			if _, noted := n.goneAt[id]; !noted {
				n.goneAt[id] = time.Now()
			}
		}
	}
	for id := range n.members {
		delete(n.goneAt, id)
	}
}

// awaitingHolder reports whether some shard has no live holder with its
// copies (neither holder live, or a primary gone and its replica not
// filled yet) and one of them went missing within two lease TTLs: the
// leader gives it to no empty node yet. An unfilled replica is such an
// empty node: in a copy-first move the joining node replaces the filled
// replica, which drops its copies, and a primary whose lease lapsed
// before the copy was done had its shard given to the joining node at
// once, served empty from then on (TestLapseDuringCopyFirstMove: 45 of
// 600 members gone; TestClusterSearchDuringRebalance short of one member
// in 2,043 of 2,502 searches at load 13-19). The caller holds n.mu.
func (n *Node) awaitingHolder(cur placement, live []string) bool {
	recent := func(id string) bool {
		at, ok := n.goneAt[id]
		return ok && id != "" && time.Since(at) < 2*n.cfg.LeaseTTL
	}
	for i, o := range cur.primary {
		r := cur.replica[i]
		if o == "" || slices.Contains(live, o) || r != "" && slices.Contains(live, r) && cur.synced[i] {
			continue
		}
		if recent(o) || recent(r) {
			return true
		}
	}
	return false
}
