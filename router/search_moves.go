package router

// Searches and ranges against members moving between the shards they
// read: a handoff between two of them must not make one miss a member.

import (
	"sync"

	"geoshard/geo"
	"geoshard/shard"
)

// searchAttempts bounds how often a search reads its shards while
// members may be handed off between them (readShards).
const searchAttempts = 3

// readShards runs read, a search of n shards of g, again while a member
// was handed off between them meanwhile. A handoff stores the new copy,
// then deletes the old one, so that a member is never missing; but a
// search reads its shards one after another, and one that read the new
// shard before the copy came and the old one after it went missed the
// member: 15-19 whole-area searches in 971-1,596 did, over 32 shards of
// Amsterdam while 16 drivers crossed them, and so did nearest searches
// and ranges (TestSearchDuringHandoffs). One shard needs none of it: a
// member leaving it leaves the searched area, and one coming in was
// outside it.
//
// A handoff counts itself before its delete, so a search that missed a
// member sees the count changed. The last attempt holds handoffs' deletes
// off (handing) while it reads, so that handoffs that never pause cannot
// make it miss one either: read is then told it runs alone, and must take
// no stripe lock, which a handoff holds while it waits. In cluster mode,
// whose handoffs are other nodes' calls, the shards name the members they
// lost to handoffs since the search began instead, and those the search
// missed are looked up (w, departures.go).
func (r *Router) readShards(g *geoKey, n int, read func(alone bool, w *moveWatch)) {
	switch {
	case r.cl != nil:
		read(false, r.watchMoves(n))
		return
	case !watchesHandoffs(g, n):
		read(false, nil)
		return
	}
	for try := 1; try < searchAttempts; try++ {
		seen := g.handoffs.Load()
		read(false, nil)
		if g.handoffs.Load() == seen {
			return
		}
		r.stats.SearchRetries.Add(1)
	}
	g.handing.Lock()
	defer g.handing.Unlock()
	read(true, nil)
}

// moveWatch is what a cluster search of several shards hears of the
// members handoffs took from them while it read (departures.go): since is
// when it began, less the nodes' clock slack. nil: a search that needs
// none.
type moveWatch struct {
	since    int64
	mu       sync.Mutex
	departed []string
}

// from is the time to ask shards about, 0 for none.
func (w *moveWatch) from() int64 {
	if w == nil {
		return 0
	}
	return w.since
}

func (w *moveWatch) add(names []string) {
	if w == nil || len(names) == 0 {
		return
	}
	w.mu.Lock()
	w.departed = append(w.departed, names...)
	w.mu.Unlock()
}

// local adds the members this node's shards ids, just read, lost where
// the read took them (match).
func (w *moveWatch) local(r *Router, ids []shard.ID, k shard.Key, cut int64, match func(shard.Entry) bool) {
	if w == nil {
		return
	}
	for _, id := range ids {
		w.add(r.departedNames(nil, id, k, cut, w.since, match))
	}
}

// missing returns the departed members that the n members the read
// found (member(i)) do not hold.
func (w *moveWatch) missing(n int, member func(i int) string) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.departed) == 0 {
		return nil
	}
	seen := make(map[string]bool, n+len(w.departed))
	for i := range n {
		seen[member(i)] = true
	}
	var out []string
	for _, m := range w.departed {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// watchMoves returns the watch of a search of n shards in cluster mode,
// else nil.
func (r *Router) watchMoves(n int) *moveWatch {
	if r.cl == nil || n < 2 {
		return nil
	}
	return &moveWatch{since: now() - clockSlack}
}

// findDeparted adds to res the members w heard departed that res lacks,
// at their current copy, where q matches it: a search that read a
// member's new shard before its copy came and its old one after it went
// would have missed it.
func (r *Router) findDeparted(res *Result, w *moveWatch, k shard.Key, q *geo.Search, cut int64) {
	for _, e := range r.currentCopies(k, w.missing(len(res.Hits), res.member), cut) {
		dist, match := q.Match(e.Lon, e.Lat)
		if cell := q.CellOf(e.Score); match && cell >= 0 {
			res.Hits = append(res.Hits, shard.Hit{Entry: e, Dist: dist, Cell: cell})
		}
	}
}

// findDepartedIn is findDeparted for a range [min, max]: it adds to all
// the members w heard departed that all lacks, at their current copy,
// where the range takes it.
func (r *Router) findDepartedIn(all []shard.Entry, w *moveWatch, k shard.Key, min, max Bound, cut int64) []shard.Entry {
	names := w.missing(len(all), func(i int) string { return all[i].Member })
	takes := rangeTakes(min, max)
	for _, e := range r.currentCopies(k, names, cut) {
		if takes(e) {
			all = append(all, e)
		}
	}
	return all
}

// currentCopies returns the current copy of each of members found on
// some node, one look-up per node for all of them; one removed or expired
// meanwhile has none.
func (r *Router) currentCopies(k shard.Key, members []string, cut int64) []shard.Entry {
	if len(members) == 0 {
		return nil
	}
	best, found, err := r.findMany(k, members, cut, nil, nil)
	if err != nil {
		r.remoteFailed("get", err) // as a read's shard: left out
	}
	var out []shard.Entry
	for j, m := range members {
		if found[j] {
			out = append(out, shard.NewEntry(m, best[j].Score, best[j].Stamp))
		}
	}
	return out
}

// watchesHandoffs reports whether a single node's read of n shards of g
// can miss a member handed off between them (readShards).
func watchesHandoffs(g *geoKey, n int) bool { return n >= 2 && g != nil }

// handoffsSeen returns g's handoff count before a nearest walk of this
// node's shards ids, plus one; 0 when no handoff can make it miss a
// member (readShards).
func (r *Router) handoffsSeen(g *geoKey, ids []shard.ID) uint64 {
	if r.cl != nil || !watchesHandoffs(g, len(ids)) {
		return 0
	}
	return g.handoffs.Load() + 1
}

// handedOff reports whether members were handed off since a nearest walk
// saw seen (handoffsSeen): then it may have missed one, and the full
// search (readShards) answers instead.
func handedOff(g *geoKey, seen uint64) bool {
	return seen != 0 && g.handoffs.Load()+1 != seen
}
