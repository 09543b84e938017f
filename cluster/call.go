package cluster

import (
	"context"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// call is a peer as one routing table names it: every call carries that
// table's version, so a node with another one refuses it (router.ErrStale)
// instead of answering for shards it no longer or not yet serves.
type call struct {
	p    *peer
	ver  int64
	pass string
}

var _ router.Peer = (*call)(nil)

func (c *call) ID() string { return c.p.id }

func (c *call) Search(ctx context.Context, id shard.ID, k shard.Key, q *geo.Search, cut int64, limit int, since int64) ([]shard.Hit, []string, error) {
	return c.p.search(ctx, c.pass, c.ver, id, k, q, cut, limit, since)
}

func (c *call) Nearest(ctx context.Context, id shard.ID, k shard.Key, q *geo.Search, cut int64, n int, since int64) ([]shard.Hit, bool, []string, error) {
	return c.p.nearest(ctx, c.pass, c.ver, id, k, q, cut, n, since)
}

func (c *call) Put(ctx context.Context, id shard.ID, k shard.Key, e shard.Entry) error {
	return c.p.put(ctx, c.pass, c.ver, id, k, e, 0)
}

func (c *call) PutIf(ctx context.Context, id shard.ID, k shard.Key, e shard.Entry, expect int64) error {
	return c.p.put(ctx, c.pass, c.ver, id, k, e, expect)
}

func (c *call) Del(ctx context.Context, ids []shard.ID, k shard.Key, member string, notAfter int64) (int64, error) {
	return c.p.del(ctx, c.pass, c.ver, ids, k, member, notAfter)
}

func (c *call) Get(ctx context.Context, ids []shard.ID, k shard.Key, member string, cut int64) (router.Copy, bool, error) {
	return c.p.get(ctx, c.pass, c.ver, ids, k, member, cut)
}

func (c *call) Scan(ctx context.Context, ids []shard.ID, k shard.Key, min, max router.Bound, rev bool, cut int64, want int,
	since int64) ([]shard.Entry, bool, []string, error) {
	return c.p.scan(ctx, c.pass, c.ver, ids, k, min, max, rev, cut, want, since)
}

func (c *call) Owner(ctx context.Context, k shard.Key, member string, cp router.Copy) (int64, error) {
	return c.p.owner(ctx, c.pass, c.ver, k, member, cp)
}

func (c *call) Drop(ctx context.Context, k shard.Key) (int64, error) {
	return c.p.drop(ctx, c.pass, c.ver, k)
}

func (c *call) Rename(ctx context.Context, from, to shard.Key) error {
	return c.p.rename(ctx, c.pass, c.ver, from, to)
}

func (c *call) Keys(ctx context.Context, db int) ([]string, error) {
	return c.p.keys(ctx, c.pass, c.ver, db)
}

func (c *call) Flush(ctx context.Context, db int) error {
	_, err := c.p.do(ctx, c.pass, c.ver, "GEOSHARD.FLUSH", itoa(int64(db)))
	return err
}
