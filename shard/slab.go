package shard

// slab holds a set's items in chunks of slabChunk, addressed by a slot
// number. Growing it never copies the items already there, so a big set
// neither keeps up to a quarter of its slab unused, as a slice grown by
// append would, nor leaves a copy of it behind as garbage on each growth.
// The first chunk grows as a slice does, so that a small set stays small.
type slab struct {
	chunks [][]item
	n      int // slots handed out
}

const (
	slabBits  = 12
	slabChunk = 1 << slabBits // items per chunk: 96 KB
)

// at returns the item in slot i, which must be below len.
func (b *slab) at(i uint32) *item { return &b.chunks[i>>slabBits][i&(slabChunk-1)] }

// len returns how many slots were handed out.
func (b *slab) len() int { return b.n }

// push stores it in a new slot and returns the slot.
func (b *slab) push(it item) uint32 {
	c := b.n >> slabBits
	if c == len(b.chunks) {
		size := slabChunk
		if c == 0 {
			size = 4
		}
		b.chunks = append(b.chunks, make([]item, 0, size))
	}
	b.chunks[c] = append(b.chunks[c], it)
	b.n++
	return uint32(b.n - 1)
}

// reserve makes room for n more items, which a bulk load knows it holds.
func (b *slab) reserve(n int) {
	if len(b.chunks) == 1 && cap(b.chunks[0]) < min(b.n+n, slabChunk) {
		grown := make([]item, len(b.chunks[0]), min(b.n+n, slabChunk))
		copy(grown, b.chunks[0])
		b.chunks[0] = grown
	}
	if len(b.chunks) == 0 {
		b.chunks = append(b.chunks, make([]item, 0, min(n, slabChunk)))
	}
}
