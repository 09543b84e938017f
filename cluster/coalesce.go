package cluster

// Conditional puts from many client connections to one node travel
// together: while some are on the wire, the next ones queue and go as one
// GEOSHARD.PUTIF. Sixteen clients updating members through a node that
// does not own them otherwise cost one bus round trip (and four system
// calls, two on each side) per GEOADD.

import (
	"context"
	"sync"

	"geoshard/router"
	"geoshard/shard"
)

// maxPutIfInflight bounds the messages one queue has on the wire at once.
// One lets the most requests queue behind it: 16 goroutines updating
// through a non-owner sent 6.6 requests per message in process
// (BenchmarkNonOwnerUpdates), and 3 node processes used 31.6 µs of CPU per
// GEOADD against 38.6 µs with two in flight (TestClusterNonOwnerUpdates,
// load 14).
const maxPutIfInflight = 1

// putIfKey is what requests must share to go in one message: the table
// version, the key, and the command (PUTIF with its flags, or PUTMANY).
type putIfKey struct {
	ver   int64
	k     shard.Key
	flags router.AddFlags
	many  bool
}

type putIfReq struct {
	ids   []shard.ID
	es    []shard.Entry
	cut   int64
	res   []router.PutIfResult
	asked []bool // PUTMANY: the puts another node asked for lately (nil: none)
	err   error
	done  chan struct{}
}

type putIfQueue struct {
	reqs     []*putIfReq
	inflight int
}

// coalescer queues a peer's conditional puts.
type coalescer struct {
	mu     sync.Mutex
	queues map[putIfKey]*putIfQueue
}

// putIf sends ids and es as part of a GEOSHARD.PUTIF with whatever else is
// queued for the same node, key and flags, and returns its share of the
// answer. The message carries the latest cut of its requests: a copy that
// expired for one of them is missing for all, which sends it the slow way.
func (p *peer) putIfQueued(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID,
	es []shard.Entry, f router.AddFlags, cut int64) ([]router.PutIfResult, error) {
	res, _, err := p.queued(ctx, pass, putIfKey{ver: ver, k: k, flags: f}, ids, es, cut)
	return res, err
}

// putManyQueued is putIfQueued for plain puts (GEOSHARD.PUTMANY): a
// replica's copies, one write at a time from many clients, share messages
// the same way.
func (p *peer) putManyQueued(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID,
	es []shard.Entry) ([]bool, error) {
	_, asked, err := p.queued(ctx, pass, putIfKey{ver: ver, k: k, many: true}, ids, es, 0)
	return asked, err
}

// queued sends its request with the others queued for key and returns
// its share of the answer: PUTIF's results, or which of PUTMANY's puts
// another node asked for lately (router/fresh.go).
func (p *peer) queued(ctx context.Context, pass string, key putIfKey, ids []shard.ID,
	es []shard.Entry, cut int64) ([]router.PutIfResult, []bool, error) {
	req := &putIfReq{ids: ids, es: es, cut: cut, done: make(chan struct{})}
	c := &p.putIfs
	c.mu.Lock()
	if c.queues == nil {
		c.queues = map[putIfKey]*putIfQueue{}
	}
	q := c.queues[key]
	if q == nil {
		q = &putIfQueue{}
		c.queues[key] = q
	}
	q.reqs = append(q.reqs, req)
	var batch []*putIfReq
	if q.inflight < maxPutIfInflight {
		q.inflight++
		batch, q.reqs = q.reqs, nil
	}
	c.mu.Unlock()
	if batch != nil {
		p.sendPutIfs(ctx, pass, key, q, batch)
	}
	select {
	case <-req.done:
		return req.res, req.asked, req.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// sendPutIfs sends one batch, hands each request its answers, and sends
// what queued meanwhile from a goroutine of its own, so the caller gets
// its answer without waiting for the others'.
func (p *peer) sendPutIfs(ctx context.Context, pass string, key putIfKey, q *putIfQueue, batch []*putIfReq) {
	var ids []shard.ID
	var es []shard.Entry
	cut := int64(0)
	for _, r := range batch {
		ids, es = append(ids, r.ids...), append(es, r.es...)
		cut = max(cut, r.cut)
	}
	var res []router.PutIfResult
	var asked []bool
	var err error
	if key.many {
		asked, err = p.putMany(ctx, pass, key.ver, key.k, ids, es)
	} else {
		res, err = p.putIf(ctx, pass, key.ver, key.k, ids, es, key.flags, cut)
	}
	at := 0
	for _, r := range batch {
		switch {
		case err != nil:
		case !key.many:
			r.res = res[at : at+len(r.es)]
		case asked != nil:
			r.asked = asked[at : at+len(r.es)]
		}
		at += len(r.es)
		r.err = err
		close(r.done)
	}
	c := &p.putIfs
	c.mu.Lock()
	next := q.reqs
	q.reqs = nil
	if len(next) == 0 {
		q.inflight--
		if q.inflight == 0 {
			delete(c.queues, key)
		}
	}
	c.mu.Unlock()
	if len(next) > 0 {
		// A fresh deadline: the requests queued have their own, as long.
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
			defer cancel()
			p.sendPutIfs(ctx, pass, key, q, next)
		}()
	}
}
