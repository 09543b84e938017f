package cluster

// The internal commands' bodies: each reads its words, then answers from
// the router's local shards.

import (
	"math"

	"geoshard/router"
	"geoshard/shard"
)

func internalPut(r *router.Router, t *Table, p *parser, w Replier) {
	id := p.shard(t)
	k := p.key()
	member, score, stamp := p.str(), p.score(), p.int()
	var expect int64 // optional: the stamp the writer expects here
	if len(p.args) > 0 {
		expect = p.int()
	}
	e := shard.NewEntry(member, score, stamp)
	p.checkStamps([]shard.Entry{e})
	if !p.ok(w) {
		return
	}
	if r.PutLocalIf(id, k, e, expect) != nil {
		w.Error(errStalePrefix + " member's copy changed")
		return
	}
	r.NoteStore() // router/fresh.go
	w.Int(1)
}

func internalDel(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	member, notAfter := p.str(), p.int()
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	w.Int(r.DelLocal(ids, k, member, notAfter))
}

func internalGet(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	member, cut := p.str(), p.int()
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	cs, oks := r.LookUpForPeer(ids, k, []string{member}, cut, nil) // router/fresh.go
	c, found := cs[0], oks[0]
	if !found {
		w.Array(0)
		return
	}
	w.Array(3)
	w.BulkString(itoa(int64(c.Shard)))
	w.BulkString(ftoa(c.Score))
	w.BulkString(itoa(c.Stamp))
}

func internalSearch(r *router.Router, t *Table, p *parser, w Replier, nearest bool) {
	id := p.shard(t)
	k := p.key()
	cut, n := p.int(), p.int()
	q := p.search()
	var since int64
	if len(p.args) > 0 {
		since = p.int()
	}
	if !p.ok(w) {
		return
	}
	hits, complete, departed := r.SearchLocal(id, k, q, cut, int(n), nearest, since)
	// Asked with since: the hits, then the members departed (an array).
	switch {
	case nearest && since > 0:
		w.Array(3)
		w.BulkString(boolArg(complete))
	case nearest:
		w.Array(2)
		w.BulkString(boolArg(complete))
	case since > 0:
		w.Array(2)
	}
	w.Bulk(encodeHits(hits))
	if since > 0 {
		w.Array(len(departed))
		for _, m := range departed {
			w.BulkString(m)
		}
	}
}

func internalRange(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	cut, since := p.int(), p.int()
	rev := p.str() == "1"
	want := p.int()
	min := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	max := router.Bound{Score: p.float(), Exclusive: p.str() == "1"}
	ids := p.rest(t)
	if !p.ok(w) {
		return
	}
	if want <= 0 || want > math.MaxInt32 {
		want = math.MaxInt
	}
	es, truncated, departed := r.ScanLocal(ids, k, min, max, rev, cut, int(want), since)
	w.Array(3)
	w.BulkString(boolArg(truncated))
	w.Bulk(encodeEntries(es))
	w.Array(len(departed))
	for _, m := range departed {
		w.BulkString(m)
	}
}

func internalOwner(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	member := p.str()
	id := p.int()
	score, stamp := p.score(), p.int()
	if id < 0 || id >= int64(len(t.local)) {
		p.fail("bad shard " + itoa(id))
	}
	from := int64(-1) // optional: the shard an arrival left (count.go)
	if len(p.args) > 0 {
		if from = p.int(); from < 0 || from >= int64(len(t.local)) {
			p.fail("bad shard " + itoa(from))
		}
	}
	if p.ok(w) {
		newer := r.CacheOwner(k, member, router.Copy{Shard: shard.ID(id), Score: score, Stamp: stamp})
		if from >= 0 {
			r.NoteArrival(k, router.Arrival{Member: member, From: shard.ID(from), Stamp: stamp})
		}
		w.Int(newer)
	}
}

func internalKeys(r *router.Router, p *parser, w Replier) {
	db := p.int()
	if p.ok(w) {
		names := r.KeysLocal(int(db))
		w.Array(len(names))
		for _, n := range names {
			w.BulkString(n)
		}
	}
}
