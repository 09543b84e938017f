package router

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"sync/atomic"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Rebuilt returns a router on a new region map that holds every live
// member of this one, each in its new shard with its score and write
// timestamp, and the same settings and per-key position TTLs; counters
// start again, since they describe the old shards. It copies every
// member before it returns (seconds per million, BenchmarkRebuilt);
// Reload is what a live server uses. In cluster mode the map comes from
// etcd and cannot be swapped under one node.
func (r *Router) Rebuilt(m *shard.Map) (*Router, error) {
	if r.cl != nil {
		return nil, errors.New("cluster mode: the region map is the cluster's, not one node's")
	}
	nr := New(Config{Regions: m, PositionTTL: r.PositionTTL(), FanoutTimeout: r.FanoutTimeout(), Logger: r.log})
	r.mu.RLock()
	nr.keyTTL = maps.Clone(r.keyTTL)
	old := maps.Clone(r.keys)
	r.mu.RUnlock()
	for k, g := range old {
		r.Each(k, func(member string, score float64, stamp int64) bool {
			nr.Restore(k, member, score, stamp)
			return true
		})
		if ng := nr.key(k, false); ng != nil && g.big.Load() {
			ng.big.Store(true) // a skiplist stays one, as in Redis
		}
	}
	return nr, nil
}

// move is a region map reload in progress: the members still in the
// previous map's shards, which keep their IDs (see shard.Map.Placed).
type move struct {
	prev   *shard.Map // the previous map, its own IDs those of its shards here
	total  int64      // members to move when it began
	moved  atomic.Int64
	done   atomic.Bool
	cancel atomic.Bool // the router was replaced or dropped
	// longest is the longest MoveMembers held a stripe (BenchmarkReload);
	// with cpuClock set (a benchmark's, on a locked thread), longestCPU is
	// the most CPU one hold used: its work, without the time the machine
	// left the mover waiting for a core.
	longest, longestCPU time.Duration
	cpuClock            func() time.Duration
}

func (mv *move) cpu() time.Duration {
	if mv.cpuClock == nil {
		return 0
	}
	return mv.cpuClock()
}

// ErrMoving refuses a reload while the previous one is still moving
// members.
var ErrMoving = errors.New("a region map reload is still moving members; try again when INFO shards shows region_map_move:done")

// Reload returns a router on map m that takes over this one's members
// where they are, in O(keys + shards) time: the previous map's shards
// stay, under their IDs, next to the new map's, and MoveMembers moves
// every member to its new shard in the background (a write moves its
// member at once). Until then searches ask both maps' shards. This
// router must not be used afterwards. A reload while a move is still
// running is refused (ErrMoving).
func (r *Router) Reload(m *shard.Map) (*Router, error) {
	if r.cl != nil {
		return nil, errors.New("cluster mode: the region map is the cluster's, not one node's")
	}
	if mv := r.move; mv != nil && !mv.done.Load() {
		return nil, fmt.Errorf("%w (%d of %d moved)", ErrMoving, mv.moved.Load(), mv.total)
	}
	cur := r.regions
	curOff, curN := cur.Own()
	// The new map goes below the current one if it fits, else above it,
	// so that IDs alternate between two ranges and never run out.
	off := 0
	if m.Len() > curOff {
		off = curOff + curN
	}
	total := max(off+m.Len(), curOff+curN)
	pm, err := m.Placed(off, total, func(id shard.ID) string {
		if int(id) >= curOff && int(id) < curOff+curN {
			return "old:" + cur.Name(id)
		}
		return fmt.Sprintf("unused:%d", id)
	})
	if err != nil {
		return nil, fmt.Errorf("placing the new map next to the old one: %w", err)
	}
	nr := New(Config{Regions: pm, PositionTTL: r.PositionTTL(), FanoutTimeout: r.FanoutTimeout(), Logger: r.log})
	copy(nr.shards[curOff:curOff+curN], r.shards[curOff:curOff+curN])
	nr.lastStamp.Store(r.lastStamp.Load())
	r.mu.Lock()
	r.retired = true // with the keys: see reclaimUnknown
	nr.keys, nr.keyTTL = r.keys, r.keyTTL
	r.keys, r.keyTTL = map[shard.Key]*geoKey{}, map[shard.Key]time.Duration{}
	r.mu.Unlock()
	mv := &move{prev: cur}
	for _, g := range nr.keys {
		g.reshard(nr.shards)
		mv.total += g.entries.Load()
		forgetHolders(g) // counted by the previous router's shard IDs
	}
	nr.move = mv
	if r.move != nil {
		r.move.cancel.Store(true)
	}
	return nr, nil
}

// moveChunk is how many members MoveMembers moves per stripe lock: a
// write to one of them waits for no more than that.
const moveChunk = 64

// MoveMembers moves every member still in a previous map's shard to its
// shard on the current map, keeping its score and write time, stripe by
// stripe and a chunk (64) at a time, so that no command waits long. It returns
// when all have moved; a router without a move returns at once.
func (r *Router) MoveMembers() {
	mv := r.move
	if mv == nil || mv.done.Load() {
		return
	}
	old := mv.prev.Owns
	var names []string
	// The keys' views, not their names: a key renamed while the move
	// runs keeps its view and is moved under its new name, read under
	// the stripe lock the rename takes too (TestReloadMoveRenamedKeys).
	for _, kv := range r.keyViews() {
		g := kv.g
		k := g.current(kv.k)
		r.reserveMoves(k, g, old)
		for i := range g.stripes {
			if mv.cancel.Load() {
				return
			}
			st := &g.stripes[i]
			st.mu.Lock()
			names = names[:0]
			for member, id := range st.owner.shards() {
				if old(id) {
					names = append(names, member)
				}
			}
			st.mu.Unlock()
			for len(names) > 0 {
				chunk := names[:min(moveChunk, len(names))]
				names = names[len(chunk):]
				st.mu.Lock()
				start, cpu := time.Now(), mv.cpu()
				if !g.dead {
					k := g.current(k)
					for _, member := range chunk {
						r.moveOne(k, g, st, member, old)
					}
				}
				mv.longest = max(mv.longest, time.Since(start))
				mv.longestCPU = max(mv.longestCPU, mv.cpu()-cpu)
				st.mu.Unlock()
				mv.moved.Add(int64(len(chunk)))
			}
		}
	}
	mv.done.Store(true)
}

// reserveMoves makes room in each shard of the new map for the members of
// k it is about to receive, while it is still (nearly) empty: growing a
// shard's set as members arrive one by one would copy its slab and rehash
// its name index at each doubling, holding that shard, and the mover's
// stripe, for as long as that takes (up to a second at 1M members on a
// loaded machine, BenchmarkReload). Scores are read a stripe at a time and
// placed outside its lock.
func (r *Router) reserveMoves(k shard.Key, g *geoKey, old func(shard.ID) bool) {
	counts := make(map[shard.ID]int)
	if g.narrowed.Load() {
		r.countMoves(k, old, counts)
	} else {
		r.countMovesByOwners(g, old, counts)
	}
	for id, n := range counts {
		r.shards[id].Reserve(k, n)
	}
}

// countMoves counts, per shard of the new map, the copies of k in the
// previous map's shards, read from their slabs a chunk at a time: a
// narrow owner table would read each member's score in its shard. Members
// that move meanwhile are miscounted; the counts only size the new sets.
func (r *Router) countMoves(k shard.Key, old func(shard.ID) bool, counts map[shard.ID]int) {
	scores := make([]float64, 0, 4096)
	for id, s := range r.shards {
		if !old(shard.ID(id)) {
			continue
		}
		for from := 0; from >= 0; {
			scores, from = s.Scores(k, from, scores[:0])
			for _, score := range scores {
				lon, lat := geo.Decode(score)
				counts[r.regions.Locate(lon, lat)]++
			}
		}
	}
}

// countMovesByOwners is countMoves from a wide owner table.
func (r *Router) countMovesByOwners(g *geoKey, old func(shard.ID) bool, counts map[shard.ID]int) {
	var scores []float64
	for i := range g.stripes {
		st := &g.stripes[i]
		scores = scores[:0]
		st.mu.Lock()
		for _, s := range st.owner.all() {
			if old(s.shard) {
				scores = append(scores, s.score)
			}
		}
		st.mu.Unlock()
		for _, score := range scores {
			lon, lat := geo.Decode(score)
			counts[r.regions.Locate(lon, lat)]++
		}
	}
}

// moveOne moves one member, its stripe locked, unless a write moved it
// first: the new copy goes in before the old one goes, as in a handoff,
// and a search seeing both keeps one.
func (r *Router) moveOne(k shard.Key, g *geoKey, st *stripe, member string, old func(shard.ID) bool) {
	h := shard.Hash(member)
	at, ok := st.owner.find(member, h)
	if !ok {
		return
	}
	from := st.owner.rec(at).shard
	if !old(from) {
		return
	}
	// The copy holds the member's score and stamp (a narrow record does
	// not), so it is read once, not through the record first.
	e, ok := r.shards[from].Get(k, member)
	if !ok {
		// The copy is gone (the position TTL reclaimed it): a new one
		// from the owner table would bring it back.
		return
	}
	to := r.regions.Locate(e.Lon, e.Lat)
	r.arrive(g, member, from, true, to)
	_, _, copyAt := r.shards[to].PutHashSlot(k, e, h)
	r.shards[from].DeleteHash(k, member, math.MaxInt64, h)
	r.depart(g, member, from)
	st.owner.setAt(at, slot{shard: to, at: copyAt, score: e.Score, stamp: e.Stamp})
}

// Moving reports a reload's move: whether one is running, and how many
// members moved of how many. ok is false when the router never reloaded.
func (r *Router) Moving() (running bool, moved, total int64, ok bool) {
	mv := r.move
	if mv == nil {
		return false, 0, 0, false
	}
	return !mv.done.Load(), mv.moved.Load(), mv.total, true
}

// moving returns the previous map while members are still moving off it.
func (r *Router) moving() *shard.Map {
	if mv := r.move; mv != nil && !mv.done.Load() {
		return mv.prev
	}
	return nil
}

// ShardMembersTotal is the sum of ShardMembers: every copy in every shard.
func (r *Router) ShardMembersTotal() int {
	n := int64(0)
	for _, c := range r.ShardMembers() {
		n += c
	}
	return int(n)
}

// keyView is a key's name when it was listed and the router's view of it.
type keyView struct {
	k shard.Key
	g *geoKey
}

// keyViews returns the router's keys with their views.
func (r *Router) keyViews() []keyView {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]keyView, 0, len(r.keys))
	for k, g := range r.keys {
		out = append(out, keyView{k, g})
	}
	return out
}

// current returns the name a key of this router (not in cluster mode)
// has now, or k if it has no source. A rename changes it with every
// stripe of the key locked: the caller holds one for a name that stays.
func (g *geoKey) current(k shard.Key) shard.Key {
	if v := g.src.v.Load(); v != nil {
		return v.key
	}
	return k
}
