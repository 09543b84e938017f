package cluster

// GEOSHARD.FRESH: another node's first writes of members of a key, for
// this node to drop its older copies of them (router/fresh.go).

import (
	"context"
	"fmt"
	"time"

	"geoshard/router"
	"geoshard/shard"
)

func (c *call) GiveWay(ctx context.Context, ids []shard.ID, k shard.Key, member string, notAfter, by int64) (int64, error) {
	return c.p.giveWay(ctx, c.pass, c.ver, ids, k, member, notAfter, by)
}

func (c *call) Fresh(ctx context.Context, k shard.Key, members []string, copies []router.Copy) ([]int64, error) {
	return c.p.fresh(ctx, c.pass, c.ver, k, members, copies)
}

// fresh sends GEOSHARD.FRESH db key members copies (one word each,
// wire_batch.go) and reads, per member, the stamp of a newer copy the
// node holds in another shard (0: none).
func (p *peer) fresh(ctx context.Context, pass string, ver int64, k shard.Key, members []string,
	copies []router.Copy) ([]int64, error) {
	found := make([]bool, len(copies))
	for i := range found {
		found[i] = true
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.FRESH", itoa(int64(k.DB)), k.Name,
		appendMembersWire(nil, members), appendCopiesWire(nil, copies, found))
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	if len(arr) != len(members) {
		return nil, fmt.Errorf("node %s: GEOSHARD.FRESH: %d answers for %d members", p.id, len(arr), len(members))
	}
	out := make([]int64, len(arr))
	for i, a := range arr {
		out[i], _ = a.(int64)
	}
	return out, nil
}

// internalFresh answers GEOSHARD.FRESH. Every copy is checked first: a
// shard the map does not have would leave none of the member's copies
// out of the drop, and a stamp far ahead would drop every later write.
func internalFresh(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	names := p.membersWire()
	cs, found, err := decodeCopiesWire(string(p.bytes()), len(names))
	if err != nil {
		p.fail("malformed copies")
	}
	limit := time.Now().Add(maxStampAhead).UnixNano()
	for i, c := range cs {
		switch {
		case !found[i] || c.By != 0:
			p.fail("a member without its copy")
		case int(c.Shard) >= len(t.local):
			p.fail("bad shard " + itoa(int64(c.Shard)))
		case c.Stamp > limit:
			p.fail("stamp " + itoa(c.Stamp) + " is more than " + maxStampAhead.String() + " ahead")
		}
	}
	if len(p.args) != 0 {
		p.fail("words after the copies")
	}
	if !p.ok(w) {
		return
	}
	newer := r.FreshLocal(k, names, cs)
	w.Array(len(newer))
	for _, n := range newer {
		w.Int(n)
	}
}

// giveWay sends GEOSHARD.GIVEWAY db key member notAfter by ids...: a
// first write's copy deleted for the newer copy stamped by
// (router/giveway.go). It answers as GEOSHARD.DEL.
func (p *peer) giveWay(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key, member string,
	notAfter, by int64) (int64, error) {
	return p.delAs(ctx, pass, ver, "GEOSHARD.GIVEWAY", []any{itoa(int64(k.DB)), k.Name, member, itoa(notAfter), itoa(by)}, ids)
}

// internalGiveWay answers GEOSHARD.GIVEWAY.
func internalGiveWay(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	member, notAfter, by := p.str(), p.int(), p.int()
	ids := p.rest(t)
	if by <= 0 {
		p.fail("bad stamp " + itoa(by))
	}
	if !p.ok(w) {
		return
	}
	w.Int(r.GiveWayLocal(ids, k, member, notAfter, by))
}
