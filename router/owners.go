package router

import (
	"iter"
	"math/bits"

	"geoshard/shard"
)

// owners is one stripe's owner table: member -> slot. A Go map of string
// keys would cost a string header and an allocation per member and hand
// the garbage collector a pointer per member to mark; this one keeps the
// names in a shard.Names, the slots in fixed-size chunks of records and
// finds them through an open-addressing table of record numbers (linear
// probing, backward-shift deletion), so that nothing per member is a
// pointer. Its stripe's lock covers it.
//
// The table is a shard.Table keyed by the member's hash with its halves
// swapped: the low bits choose the stripe (and the shard's name index its
// position), so they are alike within a stripe, and the table takes its
// home positions from the low half it is given.
type owners struct {
	table  shard.Table // record numbers by name
	chunks [][]record  // records never move: a chunk is never reallocated
	vals   [][]value   // each record's score and stamp, same layout; wide tables only
	src    *source     // nil: a wide table, which keeps vals
	free   []uint32    // record numbers to reuse
	names  shard.Names
}

// A narrow table (a big key's stripe in a router without other nodes,
// owners_source.go) keeps no score or stamp: a member's are those of its
// copy in the shard its record names, read there (source) rather than
// kept twice, 16 bytes a member. A wide one keeps them in vals: a small
// key's, for the owner-table scan of fine-map searches, and every key's in
// cluster mode, which caches them for members whose copy is on another
// node (owner cache, stale checks). owners{} is wide.

// record is one member: the shard of its current copy and, in a wide
// table, its name (a shard.Name packed in six bytes), in a narrow one the
// slab slot of that copy in its shard, whose item names the member
// (owners_slot.go): a narrow table keeps no names. nameAt is NoName's in
// both for an unused record.
type record struct {
	nameAt  uint32 // wide: the name's place; narrow: the copy's slab slot
	nameLen uint16 // wide only
	shard   shard.ID
}

// value is a wide table's copy of a member's score and stamp.
type value struct {
	score float64
	stamp int64
}

func (r *record) name() shard.Name { return shard.Unpack(r.nameAt, r.nameLen) }

const (
	recordBits = 8 // records per chunk: 2^8, 2 KB (and 4 KB of vals)
)

func (o *owners) rec(i uint32) *record {
	return &o.chunks[i>>recordBits][i&(1<<recordBits-1)]
}

func (o *owners) val(i uint32) *value {
	return &o.vals[i>>recordBits][i&(1<<recordBits-1)]
}

// nameOf returns record i's member: a narrow table reads it in the shard
// of its copy.
func (o *owners) nameOf(i uint32) string {
	if o.src != nil {
		return o.src.name(o.rec(i))
	}
	return o.names.Get(o.rec(i).name())
}

// slotAt returns the slot of record at, whose member is member with
// shard.Hash h (which only a narrow table uses).
func (o *owners) slotAt(at uint32, member string, h uint64) slot {
	s := slot{shard: o.rec(at).shard}
	if o.src == nil {
		v := o.val(at)
		s.score, s.stamp = v.score, v.stamp
		return s
	}
	r := o.rec(at)
	s.at = r.nameAt
	v := o.src.valueAt(s.shard, r.nameAt)
	s.score, s.stamp = v.Score, v.Stamp
	return s
}

// setAt stores record at's slot; a narrow table keeps only the shard and
// the copy's slab slot there (the caller has written the copy).
func (o *owners) setAt(at uint32, s slot) {
	r := o.rec(at)
	r.shard = s.shard
	if o.src != nil {
		r.nameAt = s.at
	} else {
		*o.val(at) = value{s.score, s.stamp}
	}
}

// Key and KeyHash make the owners the Keys of their table.
func (o *owners) Key(at uint32) string { return o.nameOf(at) }

func (o *owners) KeyHash(at uint32) uint64 { return tableHash(shard.Hash(o.nameOf(at))) }

// tableHash is the hash the table is given for a member whose shard.Hash
// is h.
func tableHash(h uint64) uint64 { return bits.RotateLeft64(h, 32) }

// upsert returns member's record number, adding the member with a zero
// slot if it is new, in one probe of the table. Wide tables only: a
// narrow record without its copy's slot would have no name.
func (o *owners) upsert(member string) (at uint32, existed bool) {
	o.table.Reserve(1, o)
	h := tableHash(shard.Hash(member))
	pos, found := o.table.Probe(member, h, o)
	if !found {
		o.table.Put(pos, o.newRecord(member, slot{}), h)
	}
	return o.table.At(pos), found
}

// len returns how many members the table holds.
func (o *owners) len() int { return o.table.Len() }

// get returns member's slot.
func (o *owners) get(member string) (slot, bool) {
	_, s, ok := o.lookup(member, shard.Hash(member))
	return s, ok
}

// set stores member's slot, adding the member if it is new.
func (o *owners) set(member string, s slot) {
	h := shard.Hash(member)
	if at, ok := o.find(member, h); ok {
		o.setAt(at, s)
		return
	}
	o.add(member, h, s)
}

// find returns the record number of member, whose hash is h (shard.Hash),
// ok false if member is not in the table. It stays valid until the member
// is deleted: records never move.
func (o *owners) find(member string, h uint64) (uint32, bool) {
	t := tableHash(h)
	for pos, at, ok := o.table.First(t); ok; pos, at, ok = o.table.Next(pos, t) {
		if o.nameOf(at) == member {
			return at, true
		}
	}
	return 0, false
}

// add stores a member that is not in the table; h is its shard.Hash.
func (o *owners) add(member string, h uint64, s slot) {
	o.grow(1)
	o.table.Insert(o.newRecord(member, s), tableHash(h), o)
}

// newRecord stores a member's record, not yet in the table, and returns
// its number.
func (o *owners) newRecord(member string, s slot) uint32 {
	var at uint32
	if k := len(o.free); k > 0 {
		at = o.free[k-1]
		o.free = o.free[:k-1]
	} else {
		at = uint32(o.table.Len())
		if int(at)>>recordBits == len(o.chunks) {
			o.chunks = append(o.chunks, make([]record, 1<<recordBits))
			if o.src == nil {
				o.vals = append(o.vals, make([]value, 1<<recordBits))
			}
		}
	}
	if o.src == nil {
		r := o.rec(at)
		r.nameAt, r.nameLen = o.names.Add(member).Pack()
	}
	o.setAt(at, s)
	return at
}

// reserve makes room for n more members without growing on the way.
func (o *owners) reserve(n int) {
	o.grow(n)
	o.table.Reserve(n, o)
}

// del removes member and reports whether it was there.
func (o *owners) del(member string) bool { return o.delHash(member, shard.Hash(member)) }

// delHash is del for a caller that has the member's shard.Hash h.
func (o *owners) delHash(member string, h uint64) bool {
	pos, at, ok := o.table.Find(member, tableHash(h), o)
	if !ok {
		return false
	}
	o.table.Remove(pos, o)
	r := o.rec(at)
	if o.src == nil {
		o.names.Free(r.name())
	}
	*r = record{}
	r.nameAt, r.nameLen = shard.NoName().Pack()
	if o.src == nil {
		*o.val(at) = value{}
	}
	if o.table.Len() == 0 {
		*o = owners{src: o.src} // an emptied stripe gives back everything
		return true
	}
	o.free = append(o.free, at)
	if o.src == nil && o.names.Wasteful() {
		o.compact()
	}
	return true
}

// compact copies the live names into a fresh store. Strings handed out
// before keep the old chunks alive and unchanged.
func (o *owners) compact() {
	if o.src != nil {
		return // a narrow table keeps no names
	}
	var fresh shard.Names
	for _, c := range o.chunks {
		for j := range c {
			if r := &c[j]; !r.name().None() {
				r.nameAt, r.nameLen = fresh.Add(o.names.Get(r.name())).Pack()
			}
		}
	}
	o.names = fresh
}

// all yields every member with its slot, in no particular order. The
// yielded function may delete members (the one yielded or any other) and
// add new ones, which may or may not be yielded. A narrow table reads
// each member's score and stamp from its shard: a caller that needs only
// the shard uses shards.
func (o *owners) all() iter.Seq2[string, slot] {
	return func(yield func(string, slot) bool) {
		for i := 0; i < o.limit(); i++ {
			r := o.rec(uint32(i))
			if r.name().None() {
				continue
			}
			m := o.nameOf(uint32(i))
			if !yield(m, o.slotAt(uint32(i), m, 0)) {
				return
			}
		}
	}
}

// shards yields every member with the shard of its current copy, as all
// does but without reading scores and stamps.
func (o *owners) shards() iter.Seq2[string, shard.ID] {
	return func(yield func(string, shard.ID) bool) {
		for i := 0; i < o.limit(); i++ {
			r := o.rec(uint32(i))
			if r.name().None() {
				continue
			}
			if !yield(o.nameOf(uint32(i)), r.shard) {
				return
			}
		}
	}
}

// limit is one past the highest record number ever used.
func (o *owners) limit() int { return o.table.Len() + len(o.free) }
