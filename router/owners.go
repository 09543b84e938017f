package router

import (
	"hash/maphash"
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
type owners struct {
	table  []uint32   // record number + 1; 0 is empty
	chunks [][]record // records never move: a chunk is never reallocated
	free   []uint32   // record numbers to reuse
	names  shard.Names
	n      int // members
	seed   maphash.Seed
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

func (o *owners) home(member string) int {
	return int(maphash.String(o.seed, member) & uint64(len(o.table)-1))
}

// find returns the table position holding member, or -1.
func (o *owners) find(member string) int {
	if o.n == 0 {
		return -1
	}
	i, found := o.probe(member)
	if !found {
		return -1
	}
	return i
}

// probe returns the position holding member or, if it is not there, the
// empty position where it would go. The table must not be empty.
func (o *owners) probe(member string) (int, bool) {
	mask := len(o.table) - 1
	for i := o.home(member); ; i = (i + 1) & mask {
		v := o.table[i]
		if v == 0 {
			return i, false
		}
		if o.nameOf(v-1) == member {
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
	i, found := o.probe(member)
	if !found {
		o.table[i] = o.newRecord(member, slot{}) + 1
		o.n++
	}
	return o.rec(o.table[i] - 1), found
}

// len returns how many members the table holds.
func (o *owners) len() int { return o.n }

// get returns member's slot.
func (o *owners) get(member string) (slot, bool) {
	if i := o.find(member); i >= 0 {
		return o.rec(o.table[i] - 1).slot(), true
	}
	return slot{}, false
}

// set stores member's slot, adding the member if it is new.
func (o *owners) set(member string, s slot) {
	if p := o.ref(member); p != nil {
		p.set(s)
		return
	}
	o.add(member, s)
}

// ref returns member's record, nil if member is not in the table. It
// stays valid until the member is deleted: records never move.
func (o *owners) ref(member string) *record {
	if i := o.find(member); i >= 0 {
		return o.rec(o.table[i] - 1)
	}
	return nil
}

// add stores a member that is not in the table.
func (o *owners) add(member string, s slot) {
	if (o.n+1)*4 > len(o.table)*3 {
		o.resize(max(16, 2*len(o.table)))
	}
	o.place(o.newRecord(member, s))
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

func (o *owners) place(at uint32) {
	mask := len(o.table) - 1
	i := o.home(o.nameOf(at))
	for o.table[i] != 0 {
		i = (i + 1) & mask
	}
	o.table[i] = at + 1
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
	old := o.table
	if len(old) == 0 {
		o.seed = maphash.MakeSeed()
	}
	o.table = make([]uint32, size)
	for _, v := range old {
		if v != 0 {
			o.place(v - 1)
		}
	}
}

// del removes member and reports whether it was there.
func (o *owners) del(member string) bool {
	i := o.find(member)
	if i < 0 {
		return false
	}
	at := o.table[i] - 1
	// Shift back the entries after the hole that would no longer be
	// reachable from their home position.
	mask := len(o.table) - 1
	for j := (i + 1) & mask; o.table[j] != 0; j = (j + 1) & mask {
		h := o.home(o.nameOf(o.table[j] - 1))
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
