package router

import (
	"geoshard/shard"
)

// A narrow owner table keeps no names: its record of a member is the
// shard of the member's copy and the copy's slab slot there, and the
// table's Key and KeyHash read the name from that slot (shard.NameAt).
// That costs no wrong answer as long as, for every narrow record, the
// slot it names holds its member whenever anyone reads the record. The
// rules that keep it so:
//
//   - Records are read (probes, KeyHash in a delete's backward shift or a
//     growth) only under their stripe's lock, and the shard is locked
//     inside it, for the read alone: the order stripe -> shard that every
//     write already takes. A shard never moves an item to another slot
//     (its names compaction re-addresses names, not items), so a slot
//     keeps its member until the copy is deleted.
//   - A copy a narrow record names is deleted only under the member's
//     stripe lock, and the record is removed or re-pointed in that same
//     hold: a write's handoff and a reload's move write the new copy,
//     delete the old one and re-point the record; Remove removes the
//     record (its backward shift reads other members' slots, all live)
//     and then the copy; a position TTL's reclaim (reclaim.go) removes
//     the record, if it names the expiring copy, before the copy. Only
//     then may the shard reuse the slot for another member, which takes
//     that member's stripe lock, never this one: by then no record names
//     the slot. So the 64-bit hash a backward shift needs is always
//     there to read, and no quarantine of freed slots is needed.
//   - A rename re-points the source and renames the shards' sets with
//     every stripe of the key locked (renameShards); a drop marks the key
//     dead under every stripe lock first, and writers and reclaim skip a
//     dead key. A dead key's records may still be read by a reader that
//     found it before (Score): a slot out of range or free reads as no
//     member, and one that another member's copy took reads as that
//     member with its own copy, never as another member's.
//   - A copy is never deleted through a key name that a rename or a
//     reload may have given to another view meanwhile: a rename renames
//     the shards' sets under r.mu, and a reclaim of a key the router does
//     not know deletes under r.mu too, never once the router was replaced
//     (reclaimUnknown); one of a key renamed since it was listed, and a
//     reload's move, use the view's current name (geoKey.current).
//   - Copies a dropped delete left behind (a test hook) are in slots no
//     record names.
//
// In exchange a big key's router holds 8 bytes a member and no name (the
// ~14 bytes a name cost in the router's own store), and a single score
// read or an update of a known member goes to its copy's slot rather
// than through the shard's name index.

// name returns the member of narrow record r, "" if its slot holds none
// (see above: only for a dropped key's stale record).
func (s *source) name(r *record) string {
	v := s.v.Load()
	if v == nil || int(r.shard) >= len(v.shards) {
		return ""
	}
	m, _ := v.shards[r.shard].NameAt(v.key, r.nameAt)
	return m
}

// valueAt reads the score and stamp of the copy in slab slot at of shard
// id; a slot that holds none reads as gone.
func (s *source) valueAt(id shard.ID, at uint32) shard.Value {
	v := s.v.Load()
	if v != nil && int(id) < len(v.shards) {
		if val, ok := v.shards[id].ValueAt(v.key, at); ok {
			return val
		}
	}
	return shard.Value{Stamp: gone}
}

// lostCopy is a member a wide table held whose copy its shard no longer
// had when the table turned narrow.
type lostCopy struct {
	member string
	shard  shard.ID
}

// narrow turns a wide table narrow over src: each record's name gives
// way to its copy's slab slot, found by name in its shard. A member whose
// copy is not there (none should be: its copy and record go in one stripe
// hold) is removed first, while its name can still be hashed, and
// returned. The caller holds the stripe's lock.
func (o *owners) narrow(src *source) []lostCopy {
	v := src.v.Load()
	slots := make([]uint32, o.limit())
	var lost []lostCopy
	for i := range slots {
		r := o.rec(uint32(i))
		if r.name().None() {
			continue
		}
		m := o.names.Get(r.name())
		at, ok := v.shards[r.shard].SlotHash(v.key, m, shard.Hash(m))
		if !ok {
			lost = append(lost, lostCopy{m, r.shard})
			continue
		}
		slots[i] = at
	}
	for _, l := range lost {
		o.del(l.member)
	}
	for i := 0; i < o.limit(); i++ {
		if r := o.rec(uint32(i)); !r.name().None() {
			r.nameAt, r.nameLen = slots[i], 0
		}
	}
	o.names, o.src, o.vals = shard.Names{}, src, nil
	return lost
}

// widen makes a narrow table wide: names and values read from the copies
// the records name, into the table's own store and vals.
func (o *owners) widen() {
	if o.src == nil {
		return
	}
	o.vals = make([][]value, len(o.chunks))
	for c := range o.vals {
		o.vals[c] = make([]value, 1<<recordBits)
	}
	var names shard.Names
	for i := 0; i < o.limit(); i++ {
		r := o.rec(uint32(i))
		if r.name().None() {
			continue
		}
		m := o.src.name(r)
		v := o.src.valueAt(r.shard, r.nameAt)
		r.nameAt, r.nameLen = names.Add(m).Pack()
		*o.val(uint32(i)) = value{v.Score, v.Stamp}
	}
	o.names, o.src = names, nil
}

// renameShards renames k's sets in every shard from one name to the
// other and points g's narrow tables at the new name, with every stripe
// of g locked: a record read between the two would find no name.
func (g *geoKey) renameShards(shards []*shard.Shard, from, to shard.Key) {
	for i := range g.stripes {
		g.stripes[i].mu.Lock()
	}
	defer func() {
		for i := range g.stripes {
			g.stripes[i].mu.Unlock()
		}
	}()
	for _, s := range shards {
		s.Rename(from, to)
	}
	g.renamed(to)
}

// lookup returns member's record number and slot (h is its shard.Hash):
// find and slotAt in one, which for a narrow table reads the name and
// the value of a candidate's copy in one visit to its shard (a single
// score read: ZSCORE, GEODIST, FROMMEMBER).
func (o *owners) lookup(member string, h uint64) (uint32, slot, bool) {
	if o.src == nil {
		if at, ok := o.find(member, h); ok {
			return at, o.slotAt(at, member, h), true
		}
		return 0, slot{}, false
	}
	v := o.src.v.Load()
	t := tableHash(h)
	for pos, at, ok := o.table.First(t); ok; pos, at, ok = o.table.Next(pos, t) {
		r := o.rec(at)
		if v == nil || int(r.shard) >= len(v.shards) {
			continue
		}
		m, val, ok := v.shards[r.shard].CopyAt(v.key, r.nameAt)
		if ok && m == member {
			return at, slot{shard: r.shard, at: r.nameAt, score: val.Score, stamp: val.Stamp}, true
		}
	}
	return 0, slot{}, false
}

// narrowRestored turns narrow, once a bulk restore has loaded the shards,
// the stripes of g that hold enough members: each kept entry i's record
// (recOf[i]) takes its copy's slab slot (slotOf[i]) in place of its name,
// with no look-up in the shards. Each worker sweeps the entries in order
// for its own stripes, as restoreOwners does.
func (r *Router) narrowRestored(g *geoKey, stripeOf []uint8, kept []bool, recOf, slotOf []uint32) {
	if g.src.v.Load() == nil || r.cl != nil {
		return
	}
	parallel(stripes, func(lo, hi int) {
		var turn [stripes]bool
		for s := lo; s < hi; s++ {
			st := &g.stripes[s]
			st.mu.Lock()
			turn[s] = st.owner.src == nil && st.owner.len() >= r.narrowLimit()
		}
		for i, s := range stripeOf {
			if turn[s] && kept[i] {
				rec := g.stripes[s].owner.rec(recOf[i])
				rec.nameAt, rec.nameLen = slotOf[i], 0
			}
		}
		for s := lo; s < hi; s++ {
			st := &g.stripes[s]
			if turn[s] {
				st.owner.names, st.owner.src, st.owner.vals = shard.Names{}, &g.src, nil
				g.narrowed.Store(true)
			}
			st.mu.Unlock()
		}
	})
}
