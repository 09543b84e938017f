package cluster

// GEOSHARD.COUNT: a node counts a key's members in its shards and answers
// one integer, so a count costs one small message per node.

import (
	"context"
	"fmt"

	"geoshard/router"
	"geoshard/shard"
)

var _ router.PeerCounter = (*call)(nil)

func (c *call) Count(ctx context.Context, ids []shard.ID, k shard.Key, min, max router.Bound, cut int64) (int64, error) {
	return c.p.count(ctx, c.pass, c.ver, ids, k, min, max, cut)
}

// count asks a node how many members of k have their current copy in its
// shards ids within [min, max], not older than cut.
func (p *peer) count(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	min, max router.Bound, cut int64) (int64, error) {
	args := []any{itoa(int64(k.DB)), k.Name, itoa(cut),
		ftoa(min.Score), boolArg(min.Exclusive), ftoa(max.Score), boolArg(max.Exclusive)}
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.COUNT", args...)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, fmt.Errorf("node %s: GEOSHARD.COUNT: malformed reply %v", p.id, v)
	}
	return n, nil
}

// internalCount answers GEOSHARD.COUNT db key cut min minExcl max maxExcl ids...
func internalCount(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	cut := p.int()
	min := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	max := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	w.Int(r.CountLocal(ids, k, min, max, cut))
}
