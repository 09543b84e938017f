package router

// Departures: the copies this node's shards lost to handoffs lately, kept
// for searches and ranges in cluster mode. A search reads its shards on
// several nodes, each at its own moment; a handoff (new copy stored in
// one shard, then the old one deleted in another) that falls between the
// reads of the new shard (before the copy came) and the old one (after it
// went) leaves the member out: 7-12 of 378-385 searches through a node
// while 8 drivers crossed a 3 x 3 map (TestClusterSearchDuringHandoffs),
// and 2-4 of 43-45 whole-key ZRANGEs. So a shard answering a search or a
// range also names the members whose copy, one the read took, it lost to
// a handoff since the read began (less the nodes' clock slack); a named
// member the read did not find is looked up, and its current copy joins
// the answer if the read takes it (findDeparted, findDepartedIn).
// Answering the lost copy itself would show a member moved on since, or
// removed, where it was: a search right after handoffs and ZREMs answered
// removed members.

import (
	"strings"
	"sync"
	"sync/atomic"

	"geoshard/geo"
	"geoshard/shard"
)

// maxDepartures bounds the copies kept; a search that began before the
// oldest one kept may miss a member whose departure was dropped, as
// before departures were kept.
const maxDepartures = 1 << 12

type departure struct {
	id shard.ID
	k  shard.Key
	e  shard.Entry
	at int64 // ns
}

// departureLog is the departures of the last keepRecent, oldest first.
type departureLog struct {
	mu sync.Mutex
	ring[departure]
	// newest is when the last departure was added: a search that began
	// after it reads nothing under mu, which every search's shards would
	// otherwise take in turn.
	newest atomic.Int64
}

// add records a departure at t, copying the names out of the request or
// shard buffers they may slice.
func (d *departureLog) add(id shard.ID, k shard.Key, e shard.Entry, t int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.prune(func(dp *departure) bool { return dp.at < t-keepRecent })
	k.Name, e.Member = strings.Clone(k.Name), strings.Clone(e.Member)
	d.push(departure{id, k, e, t}, maxDepartures, 16)
	d.newest.Store(t)
}

// departedNames appends to names the members of k whose copy shard id
// lost to a handoff at or after since, where the read took it (match),
// written at or after cut.
func (r *Router) departedNames(names []string, id shard.ID, k shard.Key, cut, since int64, match func(shard.Entry) bool) []string {
	d := &r.remote.departures
	if since <= 0 || d.newest.Load() < since {
		return names
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for j := d.n - 1; j >= 0; j-- {
		dp := d.at(j)
		if dp.at < since {
			break
		}
		if dp.id != id || dp.k != k || dp.e.Stamp < cut {
			continue
		}
		if match(dp.e) {
			names = append(names, dp.e.Member)
		}
	}
	return names
}

// searchTakes reports whether search q takes copy e: the read whose
// departed members a search asks for.
func searchTakes(q *geo.Search) func(shard.Entry) bool {
	return func(e shard.Entry) bool {
		_, ok := q.Match(e.Lon, e.Lat)
		return ok && q.CellOf(e.Score) >= 0
	}
}

// rangeTakes reports whether a range [min, max] takes copy e.
func rangeTakes(min, max Bound) func(shard.Entry) bool {
	return func(e shard.Entry) bool { return min.below(e.Score) && max.above(e.Score) }
}
