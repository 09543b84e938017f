package router

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"geoshard/shard"
)

// merge puts hits from several shards in discovery order and keeps one
// copy of each member: the newest, which a handoff in flight or a lost
// delete can leave next to an older one. A wide search on a fine map
// merges thousands of hits from thousands of shards, so both steps avoid
// comparing or hashing more than they must.
func merge(hits []shard.Hit) []shard.Hit {
	hits = dedupe(hits)
	for i := 1; i < len(hits); i++ {
		if compareHits(&hits[i-1], &hits[i]) > 0 {
			sortHits(hits)
			break
		}
	}
	return hits
}

// compareHits orders hits as Redis discovers them: by cell, then score,
// then member.
func compareHits(a, b *shard.Hit) int {
	if a.Cell != b.Cell {
		return cmp.Compare(a.Cell, b.Cell)
	}
	if a.Score != b.Score {
		return cmp.Compare(a.Score, b.Score)
	}
	return strings.Compare(a.Member, b.Member)
}

// hitKey is a hit's place in discovery order short of the member: the
// cell in the top bits, the 52-bit score below; at is the hit's index.
type hitKey struct {
	key uint64
	at  int32
}

// radixMin is how many hits make a radix sort of their keys pay.
const radixMin = 256

// sortHits sorts hits by compareHits. It sorts 16-byte keys rather than
// the hits, by radix when there are many, compares members only between
// hits of equal score, then moves each hit once.
func sortHits(hits []shard.Hit) {
	keys := make([]hitKey, len(hits))
	radix := len(hits) >= radixMin
	for i := range hits {
		h := &hits[i]
		score := uint64(h.Score)
		if h.Cell < 0 || h.Cell >= 1<<11 || float64(score) != h.Score || score >= 1<<52 {
			radix = false // not a Redis cell's score: compare instead
		}
		keys[i] = hitKey{uint64(h.Cell)<<52 | score, int32(i)}
	}
	if radix {
		radixSort(keys)
		// Equal keys keep their input order; Redis orders them by member.
		for i := 0; i < len(keys); {
			j := i + 1
			for j < len(keys) && keys[j].key == keys[i].key {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(keys[i:j], func(a, b hitKey) int {
					return strings.Compare(hits[a.at].Member, hits[b.at].Member)
				})
			}
			i = j
		}
	} else {
		slices.SortFunc(keys, func(a, b hitKey) int {
			return compareHits(&hits[a.at], &hits[b.at])
		})
	}
	// Follow the permutation's cycles: hits[i] takes hits[keys[i].at].
	for i := range keys {
		if int(keys[i].at) == i {
			continue
		}
		tmp, j := hits[i], i
		for {
			from := int(keys[j].at)
			keys[j].at = int32(j)
			if from == i {
				hits[j] = tmp
				break
			}
			hits[j] = hits[from]
			j = from
		}
	}
}

// radixSort sorts keys by key, stably, a byte at a time from the lowest;
// a byte that every key shares costs one counting pass and no move.
func radixSort(keys []hitKey) {
	buf := make([]hitKey, len(keys))
	src, dst := keys, buf
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, k := range src {
			count[byte(k.key>>shift)]++
		}
		if count[byte(src[0].key>>shift)] == len(src) {
			continue
		}
		pos := 0
		for b, c := range count {
			count[b] = pos
			pos += c
		}
		for _, k := range src {
			b := byte(k.key >> shift)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// dedupe keeps one copy of each member, one with the newest timestamp:
// a member being moved to another shard has two copies of one write.
// Copies are rare, so it first looks for them by 64-bit hash in an open
// table, and keys a map by member only when two hashes match.
func dedupe(hits []shard.Hit) []shard.Hit {
	if len(hits) < 2 || !maybeCopies(hits) {
		return hits
	}
	newest := make(map[string]int, len(hits)) // index of the copy kept
	dup := false
	for i, h := range hits {
		if j, ok := newest[h.Member]; ok {
			dup = true
			if h.Stamp <= hits[j].Stamp {
				continue
			}
		}
		newest[h.Member] = i
	}
	if dup {
		out := hits[:0]
		for i, h := range hits {
			if newest[h.Member] == i {
				out = append(out, h)
			}
		}
		hits = out
	}
	return hits
}

// maybeCopies reports whether two hits may name one member: false only
// when all members' hashes differ.
func maybeCopies(hits []shard.Hit) bool {
	size := 1
	for size < 2*len(hits) {
		size <<= 1
	}
	table := make([]uint64, size) // 0: empty
	seed := maphash.MakeSeed()
	for i := range hits {
		h := maphash.String(seed, hits[i].Member) | 1
		for at := h & uint64(size-1); ; at = (at + 1) & uint64(size-1) {
			if table[at] == 0 {
				table[at] = h
				break
			}
			if table[at] == h {
				return true
			}
		}
	}
	return false
}
