package shard

import "hash/maphash"

// nameIndex finds a member's slab slot by name: an open-addressing table
// of slot numbers (linear probing, backward-shift deletion), a few bytes
// per member where a map[string] would cost a string header and more.
type nameIndex struct {
	set   *set
	slots []uint32 // slab index + 1; 0 is empty
	n     int
	seed  maphash.Seed
}

func (x *nameIndex) home(member string) int {
	return int(maphash.String(x.seed, member) & uint64(len(x.slots)-1))
}

func (x *nameIndex) find(member string) (uint32, bool) {
	if x.n == 0 {
		return 0, false
	}
	for i := x.home(member); ; i = (i + 1) & (len(x.slots) - 1) {
		v := x.slots[i]
		if v == 0 {
			return 0, false
		}
		if x.set.name(v-1) == member {
			return v - 1, true
		}
	}
}

// insert adds the slab slot at, whose member is not in the index yet.
func (x *nameIndex) insert(at uint32) {
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow()
	}
	x.place(at)
	x.n++
}

func (x *nameIndex) place(at uint32) {
	member := x.set.name(at)
	i := x.home(member)
	for x.slots[i] != 0 {
		i = (i + 1) & (len(x.slots) - 1)
	}
	x.slots[i] = at + 1
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
	old := x.slots
	if len(old) == 0 {
		x.seed = maphash.MakeSeed()
	}
	x.slots = make([]uint32, size)
	for _, v := range old {
		if v != 0 {
			x.place(v - 1)
		}
	}
}

// remove deletes the slab slot at, which must be in the index.
func (x *nameIndex) remove(at uint32) {
	mask := len(x.slots) - 1
	i := x.home(x.set.name(at))
	for x.slots[i] != at+1 {
		i = (i + 1) & mask
	}
	// Shift back the entries after the hole that would no longer be
	// reachable from their home slot.
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		h := x.home(x.set.name(x.slots[j] - 1))
		if (j-h)&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
}
