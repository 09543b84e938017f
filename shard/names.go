package shard

// nameIndex finds a member's slab slot by name: a Table over the set's
// slab, keyed by Hash.
type nameIndex struct {
	set *set
	Table
}

func (x *nameIndex) find(member string) (uint32, bool) { return x.findHash(member, Hash(member)) }

// findHash is find for a member whose Hash is h.
func (x *nameIndex) findHash(member string, h uint64) (uint32, bool) {
	for pos, at, ok := x.First(h); ok; pos, at, ok = x.Next(pos, h) {
		if x.set.name(at) == member {
			return at, true
		}
	}
	return 0, false
}

// insert adds the slab slot at, whose member is not in the index yet.
func (x *nameIndex) insert(at uint32) { x.insertHash(at, Hash(x.set.name(at))) }

// insertHash is insert for a slot whose member's Hash is h.
func (x *nameIndex) insertHash(at uint32, h uint64) { x.Insert(at, h, x.set) }

// reserve makes room for n more members without growing on the way.
func (x *nameIndex) reserve(n int) { x.Reserve(n, x.set) }

// remove deletes the slab slot at, which must be in the index.
func (x *nameIndex) remove(at uint32) {
	member := x.set.name(at)
	pos, _, _ := x.Find(member, Hash(member), x.set)
	x.Remove(pos, x.set)
}

// Key and KeyHash make a set the Keys of its name index.
func (s *set) Key(at uint32) string { return s.name(at) }

func (s *set) KeyHash(at uint32) uint64 { return Hash(s.name(at)) }
