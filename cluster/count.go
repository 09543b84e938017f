package cluster

// GEOSHARD.COUNTM: a node counts a key's members in its shards and answers
// one integer, with the members it knows may have two copies (a write of
// theirs out through it, a handoff's delete that did not land) and, for
// the members asked, the newest copy of each it holds: a count costs
// one small message per node, and a second while writes are out.
// GEOSHARD.COUNT, the integer alone, is still served for nodes of the
// code before.

import (
	"context"
	"fmt"
	"strings"

	"geoshard/router"
	"geoshard/shard"
)

var _ router.PeerArrivals = (*call)(nil)

func (c *call) Count(ctx context.Context, ids []shard.ID, k shard.Key, min, max router.Bound, cut, since int64,
	asked []string) (router.CountReply, error) {
	return c.p.count(ctx, c.pass, c.ver, ids, k, min, max, cut, since, asked)
}

// Arrival is the owner notice with the shard the member left, whose old
// copy may be left: a trailing word old nodes do not send.
func (c *call) Arrival(ctx context.Context, k shard.Key, member string, cp router.Copy, from shard.ID) (int64, error) {
	v, err := c.p.do(ctx, c.pass, c.ver, "GEOSHARD.OWNER", itoa(int64(k.DB)), k.Name, member,
		itoa(int64(cp.Shard)), ftoa(cp.Score), itoa(cp.Stamp), itoa(int64(from)))
	n, _ := v.(int64)
	return n, err
}

// count asks a node how many members of k have their current copy in its
// shards ids within [min, max], not older than cut, with its copies of
// the members asked and the members it names.
func (p *peer) count(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	min, max router.Bound, cut, since int64, asked []string) (router.CountReply, error) {
	args := []any{itoa(int64(k.DB)), k.Name, itoa(cut), itoa(since),
		ftoa(min.Score), boolArg(min.Exclusive), ftoa(max.Score), boolArg(max.Exclusive),
		string(appendMembersWire(nil, asked))}
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.COUNTM", args...)
	if err != nil && strings.Contains(err.Error(), "unknown internal command") {
		// A node of the code before: it names nothing, so the asker
		// gathers the members (Whole false), as that code did.
		return router.CountReply{Asked: make([]router.Newest, len(asked))}, nil
	}
	if err != nil {
		return router.CountReply{}, err
	}
	bad := func() (router.CountReply, error) {
		return router.CountReply{}, fmt.Errorf("node %s: GEOSHARD.COUNTM: malformed reply %v", p.id, v)
	}
	arr, _ := v.([]any)
	if len(arr) != 4 {
		return bad()
	}
	n, ok1 := arr[0].(int64)
	perWord, ok2 := arr[1].(string)
	namesWord, ok3 := arr[2].(string)
	whole, ok4 := arr[3].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || n < 0 {
		return bad()
	}
	per, err1 := decodeNewestWire(perWord, len(asked))
	names, ok5 := readMembers(namesWord, router.MaxCountNames)
	if err1 != nil || !ok5 {
		return bad()
	}
	return router.CountReply{N: n, Asked: per, Names: names, Whole: whole == 1}, nil
}

// internalCount answers GEOSHARD.COUNT db key cut min minExcl max maxExcl
// ids..., and COUNTM db key cut since min minExcl max maxExcl asked ids...
func internalCount(r *router.Router, t *Table, p *parser, w Replier, names bool) {
	k := p.key()
	cut := p.int()
	var since int64
	if names {
		since = p.int()
	}
	min := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	max := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	var asked []string
	if names {
		asked = p.membersWire()
	}
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	n, per, left := r.CountLocal(ids, k, min, max, cut, asked)
	if !names {
		w.Int(n)
		return
	}
	ns, whole := r.CountNamesLocal(ids, k, cut, since)
	if ns = append(ns, left...); len(ns) > router.MaxCountNames {
		ns, whole = nil, false
	}
	w.Array(4)
	w.Int(n)
	w.Bulk(appendNewestWire(nil, per))
	w.Bulk(appendMembersWire(nil, ns))
	if whole {
		w.Int(1)
	} else {
		w.Int(0)
	}
}
