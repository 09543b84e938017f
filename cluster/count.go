package cluster

// GEOSHARD.COUNTM: a node counts a key's members in its shards and answers
// one integer with the arrival marks it keeps (few: handoffs whose delete
// did not land, within one position TTL), so a count costs one small
// message per node; GEOSHARD.LEFT is the second round, only while marks
// live. GEOSHARD.COUNT, the integer alone, is still served for nodes of
// the code before.

import (
	"context"
	"fmt"

	"geoshard/router"
	"geoshard/shard"
)

var (
	_ router.PeerCounter  = (*call)(nil)
	_ router.PeerArrivals = (*call)(nil)
)

func (c *call) Count(ctx context.Context, ids []shard.ID, k shard.Key, min, max router.Bound, cut int64) (router.CountReply, error) {
	return c.p.count(ctx, c.pass, c.ver, ids, k, min, max, cut)
}

func (c *call) Left(ctx context.Context, k shard.Key, min, max router.Bound, cut int64, marks []router.Arrival) (int64, error) {
	args := append(boundArgs(k, min, max, cut), string(appendMarksWire(nil, marks)))
	v, err := c.p.do(ctx, c.pass, c.ver, "GEOSHARD.LEFT", args...)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok || n < 0 || n > int64(len(marks)) {
		return 0, fmt.Errorf("node %s: GEOSHARD.LEFT: malformed reply %v", c.p.id, v)
	}
	return n, nil
}

// Arrival is the owner notice with the shard the member left, whose old
// copy may be left: a trailing word old nodes do not send.
func (c *call) Arrival(ctx context.Context, k shard.Key, member string, cp router.Copy, from shard.ID) error {
	_, err := c.p.do(ctx, c.pass, c.ver, "GEOSHARD.OWNER", itoa(int64(k.DB)), k.Name, member,
		itoa(int64(cp.Shard)), ftoa(cp.Score), itoa(cp.Stamp), itoa(int64(from)))
	return err
}

func boundArgs(k shard.Key, min, max router.Bound, cut int64) []any {
	return []any{itoa(int64(k.DB)), k.Name, itoa(cut),
		ftoa(min.Score), boolArg(min.Exclusive), ftoa(max.Score), boolArg(max.Exclusive)}
}

// count asks a node how many members of k have their current copy in its
// shards ids within [min, max], not older than cut, and for its marks.
func (p *peer) count(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	min, max router.Bound, cut int64) (router.CountReply, error) {
	args := boundArgs(k, min, max, cut)
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.COUNTM", args...)
	if err != nil {
		return router.CountReply{}, err
	}
	arr, _ := v.([]any)
	bad := func() (router.CountReply, error) {
		return router.CountReply{}, fmt.Errorf("node %s: GEOSHARD.COUNTM: malformed reply %v", p.id, v)
	}
	if len(arr) != 3 {
		return bad()
	}
	n, ok1 := arr[0].(int64)
	whole, ok2 := arr[2].(int64)
	word, ok3 := arr[1].(string)
	if !ok1 || !ok2 || !ok3 || n < 0 {
		return bad()
	}
	marks, err := decodeMarksWire(word)
	if err != nil {
		return bad()
	}
	return router.CountReply{N: n, Marks: marks, Whole: whole == 1}, nil
}

// internalCount answers GEOSHARD.COUNT db key cut min minExcl max maxExcl
// ids... (with marks: COUNTM).
func internalCount(r *router.Router, t *Table, p *parser, w Replier, marks bool) {
	k := p.key()
	cut := p.int()
	min, max := p.bounds()
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	n := r.CountLocal(ids, k, min, max, cut)
	if !marks {
		w.Int(n)
		return
	}
	ms, whole := r.ArrivalsLocal(k, cut)
	if len(ms) > maxReplyMarks {
		ms, whole = nil, false // the asker gathers members instead
	}
	w.Array(3)
	w.Int(n)
	w.Bulk(appendMarksWire(nil, ms))
	if whole {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// internalLeft answers GEOSHARD.LEFT db key cut min minExcl max maxExcl marks.
func internalLeft(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	cut := p.int()
	min, max := p.bounds()
	marks := p.marksWire(t)
	if len(p.args) != 0 {
		p.fail("words after the marks")
	}
	if !p.ok(w) {
		return
	}
	w.Int(r.LeftLocal(k, min, max, cut, marks))
}

func (p *parser) bounds() (min, max router.Bound) {
	min = router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	max = router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	return min, max
}
