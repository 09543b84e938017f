package cluster

// Arrival marks as one binary word (GEOSHARD.COUNTM's answer, LEFT's
// question), in the encoding of wire.go: per mark, uvarint shard, uvarint
// name length, name, stamp (8 bytes, little-endian).

import (
	"encoding/binary"
	"math"

	"geoshard/router"
	"geoshard/shard"
)

// maxReplyMarks bounds the marks one COUNTM answer carries (a few hundred
// KB at most); past it the asker gathers members instead.
const maxReplyMarks = 4096

func appendMarksWire(b []byte, ms []router.Arrival) []byte {
	for _, m := range ms {
		b = binary.AppendUvarint(b, uint64(m.From))
		b = binary.AppendUvarint(b, uint64(len(m.Member)))
		b = append(b, m.Member...)
		b = binary.LittleEndian.AppendUint64(b, uint64(m.Stamp))
	}
	return b
}

// readMark reads one mark; the shard is returned apart, for the caller
// to check.
func readMark[S string | []byte](r *wireReader[S]) (router.Arrival, uint64) {
	from := r.uvarint()
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return router.Arrival{}, 0
	}
	member := string(r.s[:n])
	r.s = r.s[n:]
	stamp := int64(r.u64())
	return router.Arrival{Member: member, Stamp: stamp}, from
}

func decodeMarksWire(s string) ([]router.Arrival, error) {
	r := wireReader[string]{s: s}
	var ms []router.Arrival
	for len(r.s) > 0 && !r.bad {
		m, from := readMark(&r)
		if from > math.MaxUint16 {
			r.bad = true
		}
		m.From = shard.ID(from)
		ms = append(ms, m)
	}
	if r.bad || len(ms) > maxReplyMarks {
		return nil, errWire
	}
	return ms, nil
}

// marksWire reads a word of marks, each shard checked as p.shard.
func (p *parser) marksWire(t *Table) []router.Arrival {
	r := wireReader[[]byte]{s: p.bytes()}
	var ms []router.Arrival
	for len(r.s) > 0 && !r.bad {
		m, from := readMark(&r)
		if r.bad {
			break
		}
		m.From = p.checkShard(t, int64(min(from, math.MaxInt32)))
		ms = append(ms, m)
	}
	if r.bad {
		p.fail("malformed marks")
	}
	return ms
}
