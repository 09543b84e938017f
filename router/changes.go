package router

// Changes: the members that gained their copy in one of this node's
// shards lately, or lost it to a handoff. A count adds up one number per node, read at
// different instants; a handoff (new copy put in one shard, then the old
// one deleted in another) that falls between two nodes' reads leaves the
// member counted twice (the new shard's node read after the put, the old
// one's before the delete) or not at all (the new shard's node read
// before the put, the old one's after the delete). When the writing node
// answered before the write began, nothing else names the member; so
// each node names the members that gained a copy (the double: the new
// shard's node) or lost one (the miss: the old shard's node) in the
// shards it counted since the count began, and the count's next round
// asks for their newest copies (remote_count.go). A copy updated where
// it is changes no count and is not recorded, so writes that stay in
// their shard keep counts to one round.

import (
	"strings"
	"sync"

	"geoshard/shard"
)

// maxChanges bounds the changes a node keeps: 56 bytes each and the
// member's name, about 5 MB for names of 24 bytes. A load that inserts
// more within keepRecent drops the oldest; a count since a dropped one
// cannot name them all and answers by gathering the members.
const maxChanges = 1 << 16

type change struct {
	id     shard.ID
	k      shard.Key
	member string
	at     int64 // ns
}

// changeLog is a ring of the changes of the last keepRecent, oldest
// first.
type changeLog struct {
	mu sync.Mutex
	ring[change]
	// lostUntil is when the newest change dropped at maxChanges was
	// made: a count since then cannot name them all.
	lostUntil int64
}

// watchChanges has every local shard record its members' arrivals and
// departures, for counts, and the copies its handoffs delete, for
// searches (departures.go); cluster mode only, so a single node's writes
// do not pay.
func (r *Router) watchChanges() {
	for i, s := range r.shards {
		id := shard.ID(i)
		s.Watch(func(k shard.Key, e shard.Entry, left bool) {
			t := now()
			r.remote.arrivals.changes.add(id, k, e.Member, t)
			if left {
				r.remote.departures.add(id, k, e, t)
			}
		})
	}
}

// add records a change at t. The member's name is copied: it may be a
// slice of a large request whose buffer it would keep alive.
func (c *changeLog) add(id shard.ID, k shard.Key, member string, t int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune(func(ch *change) bool { return ch.at < t-keepRecent })
	// Consecutive changes are mostly of one key: share its name.
	if c.n > 0 && c.at(c.n-1).k == k {
		k = c.at(c.n - 1).k
	} else {
		k.Name = strings.Clone(k.Name)
	}
	if old, dropped := c.push(change{id, k, strings.Clone(member), t}, maxChanges, 64); dropped {
		c.lostUntil = max(c.lostUntil, old.at)
	}
}

// since appends to names the members of k changed at or after t in the
// shards ids, and reports false when some such change was dropped.
func (c *changeLog) since(names []string, ids []shard.ID, k shard.Key, t int64) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for j := c.n - 1; j >= 0; j-- {
		ch := c.at(j)
		if ch.at < t {
			break
		}
		if ch.k == k && hasID(ids, ch.id) {
			names = append(names, ch.member)
		}
	}
	return names, c.lostUntil == 0 || c.lostUntil < t
}

func hasID(ids []shard.ID, id shard.ID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
