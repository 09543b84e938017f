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
	putIDs []shard.ID, puts []shard.Entry) ([]router.Copy, []bool, error) {
	return c.p.getPut(ctx, c.pass, c.ver, ids, k, members, cut, putIDs, puts)
}

func (c *call) PutMany(ctx context.Context, k shard.Key, ids []shard.ID, es []shard.Entry) error {
	return c.p.putManyQueued(ctx, c.pass, c.ver, k, ids, es)
}

// getPut sends GEOSHARD.GETPUT db key cut nids ids... nmembers members...
// (shard member score stamp)... and reads one word per member: "" (no
// copy) or "shard score stamp"; the node stores the quadruples after the
// look-up.
func (p *peer) getPut(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	members []string, cut int64, putIDs []shard.ID, puts []shard.Entry) ([]router.Copy, []bool, error) {
	args := make([]any, 0, 5+len(ids)+len(members)+4*len(puts))
	args = append(args, itoa(int64(k.DB)), k.Name, itoa(cut), itoa(int64(len(ids))))
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	args = append(args, itoa(int64(len(members))))
	for _, m := range members {
		args = append(args, m)
	}
	args = appendPuts(args, putIDs, puts)
	v, err := p.do(ctx, pass, ver, "GEOSHARD.GETPUT", args...)
	if err != nil {
		return nil, nil, err
	}
	arr, _ := v.([]any)
	if len(arr) != len(members) {
		return nil, nil, fmt.Errorf("node %s: GEOSHARD.GETPUT: %d answers for %d members", p.id, len(arr), len(members))
	}
	cs := make([]router.Copy, len(arr))
	oks := make([]bool, len(arr))
	for i, a := range arr {
		s := str(a)
		if s == "" {
			continue
		}
		c, err := parseCopy(s)
		if err != nil {
			return nil, nil, fmt.Errorf("node %s: GEOSHARD.GETPUT: %w", p.id, err)
		}
		cs[i], oks[i] = c, true
	}
	return cs, oks, nil
}

// parseCopy reads "shard score stamp".
func parseCopy(s string) (router.Copy, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return router.Copy{}, fmt.Errorf("malformed copy %q", s)
	}
	id, err1 := strconv.ParseUint(f[0], 10, 16)
	score, err2 := strconv.ParseFloat(f[1], 64)
	stamp, err3 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return router.Copy{}, fmt.Errorf("malformed copy %q", s)
	}
	return router.Copy{Shard: shard.ID(id), Score: score, Stamp: stamp}, nil
}

// putMany sends GEOSHARD.PUTMANY db key (shard member score stamp)...
func (p *peer) putMany(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID, es []shard.Entry) error {
	args := make([]any, 0, 2+4*len(es))
	args = append(args, itoa(int64(k.DB)), k.Name)
	_, err := p.do(ctx, pass, ver, "GEOSHARD.PUTMANY", appendPuts(args, ids, es)...)
	return err
}

func appendPuts(args []any, ids []shard.ID, es []shard.Entry) []any {
	for i, e := range es {
		args = append(args, itoa(int64(ids[i])), e.Member, ftoa(e.Score), itoa(e.Stamp))
	}
	return args
}

// readPuts reads the quadruples of PUTMANY, PUTIF and GETPUT: every shard
// is checked before anything is stored, so a refused call changes nothing.
func readPuts(t *Table, p *parser) ([]shard.ID, []shard.Entry) {
	if len(p.args)%4 != 0 {
		p.fail("expected shard member score stamp quadruples")
	}
	n := len(p.args) / 4
	ids := make([]shard.ID, 0, n)
	es := make([]shard.Entry, 0, n)
	for range n {
		id := p.shard(t)
		member, score, stamp := p.str(), p.float(), p.int()
		ids = append(ids, id)
		es = append(es, shard.NewEntry(member, score, stamp))
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
	m := p.int()
	if m < 0 || m > int64(len(p.args)) {
		p.fail("bad member count " + itoa(m))
		m = 0
	}
	members := p.args[:m]
	p.args = p.args[m:]
	putIDs, puts := readPuts(t, p)
	if !p.ok(w) {
		return
	}
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = string(m)
	}
	cs, oks := r.GetLocalMany(ids, k, names, cut)
	w.Array(len(members))
	for i, c := range cs {
		if !oks[i] {
			w.BulkString("")
			continue
		}
		w.BulkString(itoa(int64(c.Shard)) + " " + ftoa(c.Score) + " " + itoa(c.Stamp))
	}
	for i, e := range puts {
		r.PutLocal(putIDs[i], k, e)
	}
}

// internalPutMany answers GEOSHARD.PUTMANY.
func internalPutMany(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	ids, es := readPuts(t, p)
	if !p.ok(w) {
		return
	}
	for i, e := range es {
		r.PutLocal(ids[i], k, e)
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

// putIf sends GEOSHARD.PUTIF db key flags cut (shard member score stamp)...
// and reads one word per member: its status, then the old score.
func (p *peer) putIf(ctx context.Context, pass string, ver int64, k shard.Key, ids []shard.ID, es []shard.Entry,
	f router.AddFlags, cut int64) ([]router.PutIfResult, error) {
	args := make([]any, 0, 4+4*len(es))
	args = append(args, itoa(int64(k.DB)), k.Name, flagsArg(f), itoa(cut))
	v, err := p.do(ctx, pass, ver, "GEOSHARD.PUTIF", appendPuts(args, ids, es)...)
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	if len(arr) != len(es) {
		return nil, fmt.Errorf("node %s: GEOSHARD.PUTIF: %d answers for %d members", p.id, len(arr), len(es))
	}
	out := make([]router.PutIfResult, len(arr))
	for i, a := range arr {
		st, old, _ := strings.Cut(str(a), " ")
		status, err1 := strconv.Atoi(st)
		score, err2 := strconv.ParseFloat(old, 64)
		if err1 != nil || err2 != nil || status < router.PutIfMissing || status > router.PutIfWritten {
			return nil, fmt.Errorf("node %s: GEOSHARD.PUTIF: malformed answer %q", p.id, str(a))
		}
		out[i] = router.PutIfResult{Status: status, Old: score}
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
	w.Array(len(es))
	for i, e := range es {
		res := r.PutIfLocal(ids[i], k, e, f, cut)
		w.BulkString(strconv.Itoa(res.Status) + " " + ftoa(res.Old))
	}
}
