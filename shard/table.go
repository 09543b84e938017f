package shard

import "math/bits"

// Keys tells a Table about the records it indexes, which its owner keeps.
type Keys interface {
	Key(at uint32) string     // record at's member
	KeyHash(at uint32) uint64 // the hash the Table is given for that member
}

// Table finds records by member name: an open-addressing table of record
// numbers (linear probing, backward-shift deletion), a few bytes per
// member where a map[string] would cost a string header, an allocation
// and a pointer for the collector per member. Both the shard's name index
// and the router's owner table are one.
//
// An entry holds its record number + 1 in the bits under the table's mask
// (the power of two at or above its size, minus one) and, above them, the
// same bits of the hash's high half: a probe that meets another member's
// entry almost always tells it apart there, without reading that member's
// record and name (two cache misses in a large table). A member's home
// position is the low half of its hash scaled to the size. Record numbers
// must stay under the table's size: a table holds at most 3/4 of its size
// and only grows, so an owner that reuses numbers first (and counts from
// 0) keeps them there.
//
// Sizes go 8, 12, 16, 24, 32, ...: a power of two or one and a half times
// one. With powers of two only, a table just past 3/4 full doubles to
// under 3/8 full, 10.7 bytes a member; the steps between keep it at 4.3 to
// 8 (at 1M members: 6.3 rather than 8.4, in the shard and in the router).
type Table struct {
	slots []uint32 // entry as above; 0 is empty
	n     int
	bits  uint32 // the mask: entries' record number bits
}

// Len returns how many records the table holds.
func (t *Table) Len() int { return t.n }

// Size returns how many positions the table has.
func (t *Table) Size() int { return len(t.slots) }

func (t *Table) mask() uint32 { return t.bits }

func (t *Table) home(h uint64) uint32 { return uint32(uint64(uint32(h)) * uint64(len(t.slots)) >> 32) }

// next returns the position after i, wrapping around.
func (t *Table) next(i uint32) uint32 {
	if i++; int(i) == len(t.slots) {
		return 0
	}
	return i
}

// dist returns how many steps forward from position b position a is.
func (t *Table) dist(a, b uint32) uint32 {
	if a >= b {
		return a - b
	}
	return a + uint32(len(t.slots)) - b
}

// grow returns the table size after size.
func grow(size int) int {
	if size&(size-1) == 0 {
		return size + size/2
	}
	return size / 3 * 4
}

func (t *Table) entry(at uint32, h uint64) uint32 { return at + 1 | uint32(h>>32)&^t.mask() }

// At returns the record number at a position Find or Probe returned.
func (t *Table) At(pos uint32) uint32 { return t.slots[pos]&t.mask() - 1 }

// Find returns the position and record number of member, whose hash is h.
func (t *Table) Find(member string, h uint64, k Keys) (pos, at uint32, ok bool) {
	for pos, at, ok = t.First(h); ok; pos, at, ok = t.Next(pos, h) {
		if k.Key(at) == member {
			return pos, at, true
		}
	}
	return pos, 0, false
}

// Probe returns the position holding member, whose hash is h, or, if it
// is not there, the empty position where it would go (for Put). The
// table must have room for one more (Reserve).
func (t *Table) Probe(member string, h uint64, k Keys) (uint32, bool) {
	pos, _, ok := t.Find(member, h, k) // a miss stops at the empty position
	return pos, ok
}

// First returns the first entry that may hold the member whose hash is h
// (its tag matches), ok false if there is none. With Next, it lets a
// caller compare names itself on its hot path: Find asks its Keys.
func (t *Table) First(h uint64) (pos, at uint32, ok bool) {
	if len(t.slots) == 0 {
		return 0, 0, false
	}
	return t.scan(t.home(h), h)
}

// Next returns the entry after pos that may hold the member whose hash
// is h, as First does.
func (t *Table) Next(pos uint32, h uint64) (uint32, uint32, bool) {
	return t.scan(t.next(pos), h)
}

func (t *Table) scan(i uint32, h uint64) (pos, at uint32, ok bool) {
	mask := t.mask()
	tag := uint32(h>>32) &^ mask
	for ; ; i = t.next(i) {
		v := t.slots[i]
		if v == 0 {
			return i, 0, false
		}
		if v&^mask == tag {
			return i, v&mask - 1, true
		}
	}
}

// Put stores record at, whose member's hash is h, at the empty position
// Probe returned for that member.
func (t *Table) Put(pos, at uint32, h uint64) {
	t.slots[pos] = t.entry(at, h)
	t.n++
}

// Insert adds record at, whose member (hash h) is not in the table yet.
func (t *Table) Insert(at uint32, h uint64, k Keys) {
	t.Reserve(1, k)
	t.place(at, h)
	t.n++
}

func (t *Table) place(at uint32, h uint64) {
	i := t.home(h)
	for t.slots[i] != 0 {
		i = t.next(i)
	}
	t.slots[i] = t.entry(at, h)
}

// Grows reports whether Reserve(n) would re-place the table's records,
// asking KeyHash for each: an owner whose KeyHash is dear can prepare.
func (t *Table) Grows(n int) bool { return t.n > 0 && (t.n+n)*4 > max(8, len(t.slots))*3 }

// Reserve makes room for n more records without growing on the way.
func (t *Table) Reserve(n int, k Keys) {
	size := max(8, len(t.slots))
	for (t.n+n)*4 > size*3 {
		size = grow(size)
	}
	if size == len(t.slots) {
		return
	}
	old, oldMask := t.slots, t.mask()
	t.slots = make([]uint32, size)
	t.bits = 1<<bits.Len32(uint32(size-1)) - 1
	// Re-place the records in their numbers' order, which is about the
	// order the owner's records and names lie in memory: in the old
	// table's order each KeyHash read them at random, a cache miss or two
	// per member in a big table, and growth cost a bulk load 15% more CPU
	// once tables grew in steps of 1.5 and 4/3 rather than 2.
	live := make([]uint64, (len(old)+63)/64) // record numbers < size
	for _, v := range old {
		if v != 0 {
			at := v&oldMask - 1
			live[at/64] |= 1 << (at % 64)
		}
	}
	for w, word := range live {
		for ; word != 0; word &= word - 1 {
			at := uint32(w*64 + bits.TrailingZeros64(word))
			t.place(at, k.KeyHash(at))
		}
	}
}

// Remove deletes the entry at a position Find returned.
func (t *Table) Remove(pos uint32, k Keys) {
	mask := t.mask()
	i := pos
	// Shift back the entries after the hole that would no longer be
	// reachable from their home position.
	for j := t.next(i); t.slots[j] != 0; j = t.next(j) {
		h := t.home(k.KeyHash(t.slots[j]&mask - 1))
		if t.dist(j, h) >= t.dist(j, i) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
}
