package shard

// nameIndex finds a member's slab slot by name: an open-addressing table
// of slot numbers (linear probing, backward-shift deletion), a few bytes
// per member where a map[string] would cost a string header and more.
//
// An entry holds its slab index + 1 in the bits under the table's mask
// and, above them, the same bits of the high half of the member's Hash: a
// probe that meets another member's entry almost always tells it apart
// there, without reading that member's item and name (two cache misses in
// a large set). Slab indexes stay under the table's size: the slab grows
// only when no slot is free, to at most 3/4 of the table, which only grows.
type nameIndex struct {
	set   *set
	slots []uint32 // entry as above; 0 is empty
	n     int
}

func (x *nameIndex) mask() uint32 { return uint32(len(x.slots) - 1) }

func (x *nameIndex) home(h uint64) uint32 { return uint32(h) & x.mask() }

func (x *nameIndex) entry(at uint32, h uint64) uint32 { return at + 1 | uint32(h>>32)&^x.mask() }

func (x *nameIndex) find(member string) (uint32, bool) { return x.findHash(member, Hash(member)) }

// findHash is find for a member whose Hash is h.
func (x *nameIndex) findHash(member string, h uint64) (uint32, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := x.mask()
	tag := uint32(h>>32) &^ mask
	for i := x.home(h); ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return 0, false
		}
		if v&^mask == tag && x.set.name(v&mask-1) == member {
			return v&mask - 1, true
		}
	}
}

// insert adds the slab slot at, whose member is not in the index yet.
func (x *nameIndex) insert(at uint32) { x.insertHash(at, Hash(x.set.name(at))) }

// insertHash is insert for a slot whose member's Hash is h.
func (x *nameIndex) insertHash(at uint32, h uint64) {
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow()
	}
	x.place(at, h)
	x.n++
}

// place puts slab slot at, whose member's Hash is h, in the table.
func (x *nameIndex) place(at uint32, h uint64) {
	mask := x.mask()
	i := x.home(h)
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = x.entry(at, h)
}

func (x *nameIndex) grow() { x.resize(max(8, 2*len(x.slots))) }

// reserve makes room for n more members without growing on the way.
func (x *nameIndex) reserve(n int) {
	size := max(8, len(x.slots))
	for (x.n+n)*4 > size*3 {
		size *= 2
	}
	if size > len(x.slots) {
		x.resize(size)
	}
}

// resize rehashes into size slots, a power of two.
func (x *nameIndex) resize(size int) {
	old, oldMask := x.slots, x.mask()
	x.slots = make([]uint32, size)
	for _, v := range old {
		if v != 0 {
			at := v&oldMask - 1
			x.place(at, Hash(x.set.name(at)))
		}
	}
}

// remove deletes the slab slot at, which must be in the index.
func (x *nameIndex) remove(at uint32) {
	mask := x.mask()
	i := x.home(Hash(x.set.name(at)))
	for x.slots[i]&mask != at+1 {
		i = (i + 1) & mask
	}
	// Shift back the entries after the hole that would no longer be
	// reachable from their home slot.
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		h := x.home(Hash(x.set.name(x.slots[j]&mask - 1)))
		if (j-h)&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
}
