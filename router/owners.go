package router

import (
	"iter"

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
// A table entry holds its record number + 1 in the bits under the table's
// mask and, above them, the same bits of the member's hash: a probe that
// meets another member's entry almost always tells it apart there, without
// reading that member's record and name (two cache misses at 1M members).
// Record numbers stay under the table's size: the table holds at most 3/4
// of its size in members and only grows, and numbers are reused first.
type owners struct {
	table  []uint32   // entry as above; 0 is empty
	chunks [][]record // records never move: a chunk is never reallocated
	free   []uint32   // record numbers to reuse
	names  shard.Names
	n      int // members
}

// record is one member: its name (a shard.Name packed in six bytes) and
// its slot, in 24 bytes.
type record struct {
	nameAt  uint32 // NoName's: unused
	nameLen uint16
	shard   shard.ID
	score   float64
	stamp   int64
}

func (r *record) name() shard.Name { return shard.Unpack(r.nameAt, r.nameLen) }

func (r *record) slot() slot { return slot{shard: r.shard, score: r.score, stamp: r.stamp} }

func (r *record) set(s slot) { r.shard, r.score, r.stamp = s.shard, s.score, s.stamp }

const (
	recordBits = 8 // records per chunk: 2^8, 6 KB
)

func (o *owners) rec(i uint32) *record {
	return &o.chunks[i>>recordBits][i&(1<<recordBits-1)]
}

func (o *owners) nameOf(i uint32) string { return o.names.Get(o.rec(i).name()) }

func (o *owners) mask() uint32 { return uint32(len(o.table) - 1) }

// The owner table takes its home position from the hash's high half and
// its tag from the low half: the low bits choose the stripe (and the
// shard's name index its position), so they are alike within a stripe.
func (o *owners) home(h uint64) uint32 { return uint32(h>>32) & o.mask() }

func (o *owners) entry(at uint32, h uint64) uint32 { return at + 1 | uint32(h)&^o.mask() }

// recAt returns the record number an entry holds.
func (o *owners) recAt(v uint32) uint32 { return v&o.mask() - 1 }

// find returns the table position holding member, whose hash is h, or -1.
func (o *owners) find(member string, h uint64) int {
	if o.n == 0 {
		return -1
	}
	i, found := o.probe(member, h)
	if !found {
		return -1
	}
	return int(i)
}

// probe returns the position holding member or, if it is not there, the
// empty position where it would go. The table must not be empty.
func (o *owners) probe(member string, h uint64) (uint32, bool) {
	mask := o.mask()
	tag := uint32(h) &^ mask
	for i := o.home(h); ; i = (i + 1) & mask {
		v := o.table[i]
		if v == 0 {
			return i, false
		}
		if v&^mask == tag && o.nameOf(v&mask-1) == member {
			return i, true
		}
	}
}

// upsert returns member's record, adding the member with a zero slot if
// it is new, in one probe of the table.
func (o *owners) upsert(member string) (p *record, existed bool) {
	if (o.n+1)*4 > len(o.table)*3 {
		o.resize(max(16, 2*len(o.table)))
	}
	h := shard.Hash(member)
	i, found := o.probe(member, h)
	if !found {
		o.table[i] = o.entry(o.newRecord(member, slot{}), h)
		o.n++
	}
	return o.rec(o.recAt(o.table[i])), found
}

// len returns how many members the table holds.
func (o *owners) len() int { return o.n }

// get returns member's slot.
func (o *owners) get(member string) (slot, bool) {
	if p := o.ref(member, shard.Hash(member)); p != nil {
		return p.slot(), true
	}
	return slot{}, false
}

// set stores member's slot, adding the member if it is new.
func (o *owners) set(member string, s slot) {
	h := shard.Hash(member)
	if p := o.ref(member, h); p != nil {
		p.set(s)
		return
	}
	o.add(member, h, s)
}

// ref returns the record of member, whose hash is h (shard.Hash), nil if
// member is not in the table. It stays valid until the member is deleted:
// records never move.
func (o *owners) ref(member string, h uint64) *record {
	if i := o.find(member, h); i >= 0 {
		return o.rec(o.recAt(o.table[i]))
	}
	return nil
}

// add stores a member that is not in the table; h is its shard.Hash.
func (o *owners) add(member string, h uint64, s slot) {
	if (o.n+1)*4 > len(o.table)*3 {
		o.resize(max(16, 2*len(o.table)))
	}
	o.place(o.newRecord(member, s), h)
	o.n++
}

// newRecord stores a member's record, not yet in the table, and returns
// its number.
func (o *owners) newRecord(member string, s slot) uint32 {
	var at uint32
	if k := len(o.free); k > 0 {
		at = o.free[k-1]
		o.free = o.free[:k-1]
	} else {
		at = uint32(o.n)
		if int(at)>>recordBits == len(o.chunks) {
			o.chunks = append(o.chunks, make([]record, 1<<recordBits))
		}
	}
	r := o.rec(at)
	r.nameAt, r.nameLen = o.names.Add(member).Pack()
	r.set(s)
	return at
}

// place puts record at, whose member's hash is h, in the table.
func (o *owners) place(at uint32, h uint64) {
	mask := o.mask()
	i := o.home(h)
	for o.table[i] != 0 {
		i = (i + 1) & mask
	}
	o.table[i] = o.entry(at, h)
}

// reserve makes room for n more members without growing on the way.
func (o *owners) reserve(n int) {
	size := max(16, len(o.table))
	for (o.n+n)*4 > size*3 {
		size *= 2
	}
	if size > len(o.table) {
		o.resize(size)
	}
}

// resize rehashes into size positions, a power of two.
func (o *owners) resize(size int) {
	old, oldMask := o.table, o.mask()
	o.table = make([]uint32, size)
	for _, v := range old {
		if v != 0 {
			at := v&oldMask - 1
			o.place(at, shard.Hash(o.nameOf(at)))
		}
	}
}

// del removes member and reports whether it was there.
func (o *owners) del(member string) bool {
	k := o.find(member, shard.Hash(member))
	if k < 0 {
		return false
	}
	i := uint32(k)
	at := o.recAt(o.table[i])
	// Shift back the entries after the hole that would no longer be
	// reachable from their home position.
	mask := o.mask()
	for j := (i + 1) & mask; o.table[j] != 0; j = (j + 1) & mask {
		h := o.home(shard.Hash(o.nameOf(o.recAt(o.table[j]))))
		if (j-h)&mask >= (j-i)&mask {
			o.table[i] = o.table[j]
			i = j
		}
	}
	o.table[i] = 0
	r := o.rec(at)
	o.names.Free(r.name())
	*r = record{}
	r.nameAt, r.nameLen = shard.NoName().Pack()
	o.n--
	if o.n == 0 {
		*o = owners{} // an emptied stripe gives back everything
		return true
	}
	o.free = append(o.free, at)
	if o.names.Wasteful() {
		o.compact()
	}
	return true
}

// compact copies the live names into a fresh store. Strings handed out
// before keep the old chunks alive and unchanged.
func (o *owners) compact() {
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
// add new ones, which may or may not be yielded.
func (o *owners) all() iter.Seq2[string, slot] {
	return func(yield func(string, slot) bool) {
		for i := 0; i < o.limit(); i++ {
			r := o.rec(uint32(i))
			if r.name().None() {
				continue
			}
			if !yield(o.names.Get(r.name()), r.slot()) {
				return
			}
		}
	}
}

// limit is one past the highest record number ever used.
func (o *owners) limit() int { return o.n + len(o.free) }
