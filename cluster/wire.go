package cluster

// The bulk replies of GEOSHARD SEARCH, NEAREST and RANGE: one binary
// string instead of five (or three) RESP words per hit. A search of a big
// shard answers ten thousand hits and more; as words, decoding them on the
// asking node cost more than the search itself (12,344 hits: 29-42 ms
// through a non-owner vs 3 ms on the owner), enough to miss the fan-out
// deadline and answer nothing. Per hit: uvarint member length, member,
// score, stamp and (for hits) distance as 8 bytes each, little-endian,
// then uvarint cell.

import (
	"encoding/binary"
	"errors"
	"math"

	"geoshard/shard"
)

var errWire = errors.New("malformed hits")

func appendEntry(b []byte, e shard.Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(e.Member)))
	b = append(b, e.Member...)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Score))
	return binary.LittleEndian.AppendUint64(b, uint64(e.Stamp))
}

func encodeHits(hits []shard.Hit) []byte {
	b := make([]byte, 0, len(hits)*48)
	for _, h := range hits {
		b = appendEntry(b, h.Entry)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Dist))
		b = binary.AppendUvarint(b, uint64(h.Cell))
	}
	return b
}

func encodeEntries(es []shard.Entry) []byte {
	b := make([]byte, 0, len(es)*40)
	for _, e := range es {
		b = appendEntry(b, e)
	}
	return b
}

// wireReader reads the encoding from a reply (a string) or a command's
// word (bytes, which a member's name is copied out of), keeping the first
// error.
type wireReader[S string | []byte] struct {
	s   S
	bad bool
}

func (r *wireReader[S]) uvarint() uint64 {
	var n uint64
	for shift := 0; shift < 64; shift += 7 {
		if len(r.s) == 0 {
			r.bad = true
			return 0
		}
		c := r.s[0]
		r.s = r.s[1:]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.bad = true
	return 0
}

func (r *wireReader[S]) u64() uint64 {
	if len(r.s) < 8 {
		r.bad = true
		return 0
	}
	v := uint64(r.s[0]) | uint64(r.s[1])<<8 | uint64(r.s[2])<<16 | uint64(r.s[3])<<24 |
		uint64(r.s[4])<<32 | uint64(r.s[5])<<40 | uint64(r.s[6])<<48 | uint64(r.s[7])<<56
	r.s = r.s[8:]
	return v
}

func (r *wireReader[S]) entry() shard.Entry {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return shard.Entry{}
	}
	member := string(r.s[:n])
	r.s = r.s[n:]
	score := math.Float64frombits(r.u64())
	stamp := int64(r.u64())
	return shard.NewEntry(member, score, stamp)
}

func decodeHitsWire(s string) ([]shard.Hit, error) {
	r := wireReader[string]{s: s}
	var hits []shard.Hit
	for len(r.s) > 0 && !r.bad {
		e := r.entry()
		dist := math.Float64frombits(r.u64())
		cell := r.uvarint()
		hits = append(hits, shard.Hit{Entry: e, Dist: dist, Cell: int(cell)})
	}
	if r.bad {
		return nil, errWire
	}
	return hits, nil
}

func decodeEntriesWire(s string) ([]shard.Entry, error) {
	r := wireReader[string]{s: s}
	var es []shard.Entry
	for len(r.s) > 0 && !r.bad {
		es = append(es, r.entry())
	}
	if r.bad {
		return nil, errWire
	}
	return es, nil
}
