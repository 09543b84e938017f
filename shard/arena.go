package shard

import "unsafe"

// Names stores member names as bytes in large chunks and refers to each by
// a Name: where its bytes start and how many there are. The chunks hold no
// pointers, so the garbage collector never scans them, and a name costs
// its bytes instead of a string header, an allocation of its own and the
// rounding to a size class. Finding a name's bytes reads nothing but the
// Name: a search that hands out names never touches the chunks. Bytes once written are never changed: a string returned by Get
// points into its chunk and stays valid for as long as anyone holds it,
// even after the name is freed or the store compacted (the old chunk lives
// on until the last such string is gone).
//
// Names is not safe for concurrent use; its owner's lock covers it.
type Names struct {
	chunks [][]byte
	long   []string // names too long for a chunk, by index
	free   []uint32 // unused indexes of long
	live   int      // bytes in use
	dead   int      // bytes freed or skipped at a chunk's end
}

// Name refers to one name in a Names. Short names are at an offset in the
// chunks (chunk index, then offset in the chunk); with the top bit of at
// set, at is an index in the long names.
type Name struct {
	at, size uint32
}

const (
	chunkBits  = 20
	chunkSize  = 1 << chunkBits
	maxChunks  = 1 << (31 - chunkBits)
	longName   = 1 << 31
	maxInChunk = 4 << 10 // longer names are kept as strings
)

// Add stores member and returns its Name.
func (ns *Names) Add(member string) Name {
	n := len(member)
	if n > maxInChunk || !ns.room(n) {
		return ns.addLong(member)
	}
	c := &ns.chunks[len(ns.chunks)-1]
	off := len(*c)
	*c = append(*c, member...)
	ns.live += n
	return Name{uint32((len(ns.chunks)-1)<<chunkBits | off), uint32(n)}
}

// room makes sure the last chunk has n bytes free, opening a new chunk if
// it has not; it reports false when the chunks are all used.
func (ns *Names) room(n int) bool {
	// A store's first chunks start small and double, so that a key with
	// a handful of members does not cost a megabyte.
	size := 256
	if k := len(ns.chunks); k > 0 {
		last := ns.chunks[k-1]
		if len(last)+n <= cap(last) {
			return true
		}
		if k == maxChunks {
			return false
		}
		ns.dead += cap(last) - len(last)
		size = min(2*cap(last), chunkSize)
	}
	ns.chunks = append(ns.chunks, make([]byte, 0, max(size, n)))
	return true
}

func (ns *Names) addLong(member string) Name {
	ns.live += len(member)
	if k := len(ns.free); k > 0 {
		i := ns.free[k-1]
		ns.free = ns.free[:k-1]
		ns.long[i] = member
		return Name{longName | i, uint32(len(member))}
	}
	ns.long = append(ns.long, member)
	return Name{longName | uint32(len(ns.long)-1), uint32(len(member))}
}

// Get returns the name n refers to.
func (ns *Names) Get(n Name) string {
	if n.at&longName != 0 {
		return ns.long[n.at&^longName]
	}
	if n.size == 0 {
		return ""
	}
	c := ns.chunks[n.at>>chunkBits]
	return unsafe.String(&c[n.at&(chunkSize-1)], n.size)
}

// Free gives n's bytes back; n must not be used again. The bytes are
// reused only once the owner compacts the store.
func (ns *Names) Free(n Name) {
	size := int(n.size)
	if n.at&longName != 0 {
		i := n.at &^ longName
		size = len(ns.long[i])
		ns.long[i] = ""
		ns.free = append(ns.free, i)
	}
	ns.live -= size
	ns.dead += size
}

// Wasteful reports whether compacting would give back enough to be worth a
// copy of every live name: more than is in use, and more than compactMin.
func (ns *Names) Wasteful() bool {
	return ns.dead > compactMin && ns.dead > ns.live
}

// compactMin keeps small stores from compacting over and over.
const compactMin = 64 << 10

// Bytes returns the bytes the store holds, in use or not.
func (ns *Names) Bytes() int {
	n := 0
	for _, c := range ns.chunks {
		n += cap(c)
	}
	for _, s := range ns.long {
		n += len(s) + 16
	}
	return n
}

// noNameAt is no name's place: long name number 2^31-1 is never reached.
const noNameAt = 1<<32 - 1

// NoName returns the Name of nothing, for marking an unused place.
func NoName() Name { return Name{at: noNameAt} }

// None reports whether n is NoName.
func (n Name) None() bool { return n.at == noNameAt }

// Pack returns n in six bytes, for a table that fits it around other
// fields: a name kept in a chunk is at most maxInChunk bytes long, and a
// long one's length is in its string.
func (n Name) Pack() (at uint32, size uint16) {
	if n.at&longName != 0 {
		return n.at, 0
	}
	return n.at, uint16(n.size)
}

// Unpack is Pack's inverse.
func Unpack(at uint32, size uint16) Name { return Name{at, uint32(size)} }
