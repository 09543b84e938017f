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
		case !found[i]:
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
