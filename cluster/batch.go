package cluster

// GEOSHARD.GETMANY and GEOSHARD.PUTMANY: a batched write looks up and
// stores many members of one key with one message per node.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"geoshard/router"
	"geoshard/shard"
)

var _ router.PeerBatcher = (*call)(nil)

func (c *call) GetPut(ctx context.Context, ids []shard.ID, k shard.Key, members []string, cut int64,
	putIDs []shard.ID, puts []shard.Entry) ([]router.Copy, []bool, []bool, error) {
	return c.p.getPut(ctx, c.pass, c.ver, ids, k, members, cut, putIDs, puts)
}

func (c *call) PutMany(ctx context.Context, k shard.Key, ids []shard.ID, es []shard.Entry) ([]bool, error) {
	return c.p.putManyQueued(ctx, c.pass, c.ver, k, ids, es)
}

// getPut sends GEOSHARD.GETPUT db key cut nids ids... members puts (the
// last two one word each, wire_batch.go) and reads one word of copies and
// one of which puts another node asked for lately ("1" or "0" each; empty
// for none); the node stores the puts after the look-up.
func (p *peer) getPut(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	members []string, cut int64, putIDs []shard.ID, puts []shard.Entry) ([]router.Copy, []bool, []bool, error) {
	args := make([]any, 0, 6+len(ids))
	args = append(args, itoa(int64(k.DB)), k.Name, itoa(cut), itoa(int64(len(ids))))
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	args = append(args, appendMembersWire(nil, members))
	args = appendPuts(args, putIDs, puts)
	v, err := p.do(ctx, pass, ver, "GEOSHARD.GETPUT", args...)
	if err != nil {
		return nil, nil, nil, err
	}
	arr, _ := v.([]any)
	if len(arr) != 2 {
		return nil, nil, nil, fmt.Errorf("node %s: GEOSHARD.GETPUT: malformed reply", p.id)
	}
	cs, oks, err := decodeCopiesWire(str(arr[0]), len(members))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("node %s: GEOSHARD.GETPUT: %w", p.id, err)
	}
	asked, err := decodeAskedWire(str(arr[1]), len(puts))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("node %s: GEOSHARD.GETPUT: %w", p.id, err)
	}
	return cs, oks, asked, nil
}

// appendAskedWire writes StoredForPeer's answer: nothing for none asked,
// else a '1' or '0' per put.
func appendAskedWire(b []byte, asked []bool) []byte {
	for _, a := range asked {
		if a {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	return b
}

// decodeAskedWire reads appendAskedWire's word for n puts.
func decodeAskedWire(s string, n int) ([]bool, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) != n || strings.Trim(s, "01") != "" {
		return nil, fmt.Errorf("malformed asked puts %q for %d puts", s, n)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = s[i] == '1'
	}
	return out, nil
}

// putMany sends GEOSHARD.PUTMANY db key puts (one word, wire_batch.go)
// and reads the count stored or, when another node asked for some of them
// lately, which (a word as GETPUT's second).
func (p *peer) putMany(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID, es []shard.Entry) ([]bool, error) {
	args := make([]any, 0, 3)
	args = append(args, itoa(int64(k.DB)), k.Name)
	v, err := p.do(ctx, pass, ver, "GEOSHARD.PUTMANY", appendPuts(args, ids, es)...)
	if err != nil {
		return nil, err
	}
	word, ok := v.(string)
	if !ok {
		return nil, nil // the count: none asked
	}
	asked, err := decodeAskedWire(word, len(es))
	if err != nil {
		return nil, fmt.Errorf("node %s: GEOSHARD.PUTMANY: %w", p.id, err)
	}
	return asked, nil
}

// appendPuts adds the puts as one word (wire_batch.go).
func appendPuts(args []any, ids []shard.ID, es []shard.Entry) []any {
	return append(args, appendPutsWire(nil, ids, es))
}

// readPuts reads the puts of PUTMANY, PUTIF and GETPUT: every shard is
// checked before anything is stored, so a refused call changes nothing.
func readPuts(t *Table, p *parser) ([]shard.ID, []shard.Entry) {
	ids, es := p.putsWire(t)
	p.checkStamps(es)
	if len(p.args) != 0 {
		p.fail("words after the puts")
	}
	return ids, es
}

// internalGetPut answers GEOSHARD.GETPUT: the look-up first, then the puts.
func internalGetPut(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	cut, n := p.int(), p.int()
	if n < 0 || n > int64(len(p.args)) {
		p.fail("bad shard count " + itoa(n))
		n = 0
	}
	ids := make([]shard.ID, 0, n)
	for range n {
		ids = append(ids, p.shard(t))
	}
	names := p.membersWire()
	putIDs, puts := readPuts(t, p)
	if !p.ok(w) {
		return
	}
	// LookUpForPeer and StoredForPeer: first writes racing another node's
	// (router/fresh.go).
	cs, oks := r.LookUpForPeer(ids, k, names, cut, puts)
	r.GaveWayFor(ids, k, names, cs, oks)
	r.PutLocalMany(putIDs, k, puts)
	asked := r.StoredForPeer(puts)
	w.Array(2)
	w.Bulk(appendCopiesWire(make([]byte, 0, 20*len(cs)), cs, oks))
	w.Bulk(appendAskedWire(nil, asked))
}

// internalPutMany answers GEOSHARD.PUTMANY.
func internalPutMany(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	ids, es := readPuts(t, p)
	if !p.ok(w) {
		return
	}
	r.PutLocalMany(ids, k, es)
	if asked := r.StoredForPeer(es); asked != nil { // router/fresh.go
		w.Bulk(appendAskedWire(nil, asked))
		return
	}
	w.Int(int64(len(es)))
}

func (c *call) PutIfMany(ctx context.Context, k shard.Key, ids []shard.ID, es []shard.Entry, f router.AddFlags, cut int64) ([]router.PutIfResult, error) {
	return c.p.putIfQueued(ctx, c.pass, c.ver, k, ids, es, f, cut)
}

// flagsArg sends NX, XX, GT and LT as four 0/1 characters.
func flagsArg(f router.AddFlags) string {
	return boolArg(f.NX) + boolArg(f.XX) + boolArg(f.GT) + boolArg(f.LT)
}

// putIf sends GEOSHARD.PUTIF db key flags cut puts (one word, wire_batch.go)
// and reads one word: per member its status and the old score.
func (p *peer) putIf(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID, es []shard.Entry,
	f router.AddFlags, cut int64) ([]router.PutIfResult, error) {
	args := make([]any, 0, 5)
	args = append(args, itoa(int64(k.DB)), k.Name, flagsArg(f), itoa(cut))
	v, err := p.do(ctx, pass, ver, "GEOSHARD.PUTIF", appendPuts(args, ids, es)...)
	if err != nil {
		return nil, err
	}
	out, err := decodePutIfWire(str(v), len(es))
	if err != nil {
		return nil, fmt.Errorf("node %s: GEOSHARD.PUTIF: %w", p.id, err)
	}
	return out, nil
}

// internalPutIf answers GEOSHARD.PUTIF: every entry is checked before any
// is written.
func internalPutIf(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	fl := p.str()
	cut := p.int()
	if len(fl) != 4 || strings.Trim(fl, "01") != "" {
		p.fail("bad flags " + strconv.Quote(fl))
	}
	f := router.AddFlags{NX: fl[0] == '1', XX: fl[1] == '1', GT: fl[2] == '1', LT: fl[3] == '1'}
	ids, es := readPuts(t, p)
	if !p.ok(w) {
		return
	}
	b := make([]byte, 0, 9*len(es))
	for i, e := range es {
		b = appendPutIfWire(b, r.PutIfLocal(ids[i], k, e, f, cut))
	}
	w.Bulk(b)
}
