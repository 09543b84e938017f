package cluster

// COUNTM's words, in the encoding of wire.go and wire_batch.go: the
// members asked and the members named are words of members
// (appendMembersWire, readMembers); per member asked, in order, its newest copy is 0
// (none), or 1 (score in range) or 2 (out of it) and the stamp.

import (
	"encoding/binary"

	"geoshard/router"
)

func appendNewestWire(b []byte, per []router.Newest) []byte {
	for _, n := range per {
		switch {
		case !n.Found:
			b = append(b, 0)
			continue
		case n.In:
			b = append(b, 1)
		default:
			b = append(b, 2)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(n.Stamp))
	}
	return b
}

// decodeNewestWire reads the newest copies of n members.
func decodeNewestWire(s string, n int) ([]router.Newest, error) {
	r := wireReader[string]{s: s}
	out := make([]router.Newest, 0, n)
	for len(r.s) > 0 && !r.bad && len(out) < n {
		flag := r.s[0]
		r.s = r.s[1:]
		if flag == 0 {
			out = append(out, router.Newest{})
			continue
		}
		if flag > 2 {
			r.bad = true
			break
		}
		out = append(out, router.Newest{Found: true, In: flag == 1, Stamp: int64(r.u64())})
	}
	if r.bad || len(out) != n || len(r.s) > 0 {
		return nil, errWire
	}
	return out, nil
}

var _ router.PeerCounter = (*call)(nil)
