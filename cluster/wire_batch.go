package cluster

// The batched writes' members, copies and answers as one binary word each
// (GETPUT, PUTMANY, PUTIF), in the encoding of wire.go. As RESP words, a
// GETPUT of 500 members was 2,500 words out and 500 back: a boxed string
// per word to send, a string per word to parse on the other side (the
// score and stamp only to be parsed again as numbers), and "shard score
// stamp" answers split with strings.Fields. Now a member costs its name's
// bytes plus a few, and one allocation (its name) where it is stored.
//
//	puts:    per put, uvarint shard, then the entry (wire.go's appendEntry)
//	members: per member, uvarint length, name
//	copies:  per member, 0 (no copy) or 1, uvarint shard, score, stamp
//	putifs:  per member, status byte, old score

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"geoshard/router"
	"geoshard/shard"
)

// appendPutsWire and appendMembersWire grow b once to the word's size
// (names plus at most 10 bytes of varints each, plus score and stamp):
// doubling it as it filled allocated each GETPUT's bytes about twice.
func appendPutsWire(b []byte, ids []shard.ID, es []shard.Entry) []byte {
	n := 0
	for _, e := range es {
		n += len(e.Member) + 2*binary.MaxVarintLen32 + 16
	}
	b = slices.Grow(b, n)
	for i, e := range es {
		b = binary.AppendUvarint(b, uint64(ids[i]))
		b = appendEntry(b, e)
	}
	return b
}

func appendMembersWire(b []byte, members []string) []byte {
	n := 0
	for _, m := range members {
		n += len(m) + binary.MaxVarintLen32
	}
	b = slices.Grow(b, n)
	for _, m := range members {
		b = binary.AppendUvarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	return b
}

func appendCopiesWire(b []byte, cs []router.Copy, oks []bool) []byte {
	for i, c := range cs {
		if !oks[i] {
			b = append(b, 0)
			continue
		}
		if c.By != 0 {
			b = append(b, 2) // a copy that gave way, its By last (router/giveway.go)
		} else {
			b = append(b, 1)
		}
		b = binary.AppendUvarint(b, uint64(c.Shard))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.Score))
		b = binary.LittleEndian.AppendUint64(b, uint64(c.Stamp))
		if c.By != 0 {
			b = binary.LittleEndian.AppendUint64(b, uint64(c.By))
		}
	}
	return b
}

func appendPutIfWire(b []byte, res router.PutIfResult) []byte {
	b = append(b, byte(res.Status))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(res.Old))
}

// ownNameLen is the longest member name of a batch that shares the
// batch's string (putsWire).
const ownNameLen = 256

// bytes reads a word without copying it.
func (p *parser) bytes() []byte {
	if len(p.args) == 0 {
		p.fail("missing argument")
		return nil
	}
	b := p.args[0]
	p.args = p.args[1:]
	return b
}

// putsWire reads a word of puts; every shard is checked (as p.shard)
// before anything is stored, so a refused call changes nothing. The
// members' names share one string (one allocation, not one per name): a
// shard and an owner table copy a name into their arenas, so the word
// lives only as long as the call. A long name gets a string of its own,
// since those are kept as they come (shard.Names).
func (p *parser) putsWire(t *Table) ([]shard.ID, []shard.Entry) {
	r := wireReader[string]{s: string(p.bytes())}
	var ids []shard.ID
	var es []shard.Entry
	if count := countPuts(r); count > 0 {
		ids, es = make([]shard.ID, 0, count), make([]shard.Entry, 0, count)
	}
	for len(r.s) > 0 && !r.bad {
		n := r.uvarint()
		e := r.entry()
		if r.bad || math.IsNaN(e.Score) { // parser.score says why
			r.bad = true
			break
		}
		if len(e.Member) > ownNameLen {
			e.Member = strings.Clone(e.Member)
		}
		ids = append(ids, p.checkShard(t, int64(min(n, math.MaxInt32))))
		es = append(es, e)
	}
	if r.bad {
		p.fail("malformed puts")
	}
	return ids, es
}

// countPuts counts the puts of a word, to size putsWire's slices (a
// holder of a cold load spent a sixth of reading its GETPUTs growing
// them); a malformed word counts what reads, and putsWire says it is bad.
func countPuts(r wireReader[string]) int {
	n := 0
	for len(r.s) > 0 && !r.bad {
		r.uvarint()
		size := r.uvarint()
		if r.bad || size > uint64(len(r.s)) || len(r.s)-int(size) < 16 {
			break
		}
		r.s = r.s[int(size)+16:] // the name, then score and stamp
		n++
	}
	return n
}

// countMembers counts the names of a word, as countPuts the puts.
func countMembers(r wireReader[string]) int {
	n := 0
	for len(r.s) > 0 && !r.bad {
		size := r.uvarint()
		if r.bad || size > uint64(len(r.s)) {
			break
		}
		r.s = r.s[size:]
		n++
	}
	return n
}

// membersWire reads a word of member names. They share one string, one
// allocation instead of one per name (a cold load's GETPUTs made a
// string of every new member on every node): the names are looked up
// (GETPUT), and none is kept past the call to hold the others alive.
func (p *parser) membersWire() []string {
	out, ok := readMembers(string(p.bytes()), 0)
	if !ok {
		p.fail("malformed members")
	}
	return out
}

// readMembers reads a word of member names (appendMembersWire), at most
// most of them (0: any); ok is false for a malformed word or more names.
func readMembers(s string, most int) (out []string, ok bool) {
	r := wireReader[string]{s: s}
	if n := countMembers(r); n > 0 {
		out = make([]string, 0, n)
	}
	for len(r.s) > 0 {
		n := r.uvarint()
		if r.bad || n > uint64(len(r.s)) || most > 0 && len(out) == most {
			return nil, false
		}
		out = append(out, r.s[:n])
		r.s = r.s[n:]
	}
	return out, true
}

// decodeCopiesWire reads GETPUT's answer for n members.
func decodeCopiesWire(s string, n int) ([]router.Copy, []bool, error) {
	r := wireReader[string]{s: s}
	cs, oks := make([]router.Copy, n), make([]bool, n)
	for i := range n {
		if len(r.s) == 0 {
			return nil, nil, fmt.Errorf("%d answers for %d members", i, n)
		}
		found := r.s[0]
		r.s = r.s[1:]
		if found == 0 {
			continue
		}
		id := r.uvarint()
		score, stamp := math.Float64frombits(r.u64()), int64(r.u64())
		var by int64
		if found == 2 {
			if by = int64(r.u64()); by == 0 {
				return nil, nil, errWire
			}
		}
		if r.bad || found > 2 || id > math.MaxUint16 {
			return nil, nil, errWire
		}
		cs[i], oks[i] = router.Copy{Shard: shard.ID(id), Score: score, Stamp: stamp, By: by}, true
	}
	if len(r.s) != 0 {
		return nil, nil, fmt.Errorf("more answers than %d members", n)
	}
	return cs, oks, nil
}

// decodePutIfWire reads PUTIF's answer for n members.
func decodePutIfWire(s string, n int) ([]router.PutIfResult, error) {
	if len(s) != 9*n {
		return nil, fmt.Errorf("%d bytes of answers for %d members", len(s), n)
	}
	r := wireReader[string]{s: s}
	out := make([]router.PutIfResult, n)
	for i := range out {
		status := int(r.s[0])
		r.s = r.s[1:]
		if status < router.PutIfMissing || status > router.PutIfWritten {
			return nil, fmt.Errorf("malformed status %d", status)
		}
		out[i] = router.PutIfResult{Status: status, Old: math.Float64frombits(r.u64())}
	}
	return out, nil
}
