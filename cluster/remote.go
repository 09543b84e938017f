package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// peer is another node of the cluster, reached over RESP with a pooled
// bus client (busclient.go). The same peer is shared by every table that
// names the node at the same address.
type peer struct {
	id, addr string
	c        *busClient
	timeout  time.Duration
	putIfs   coalescer // conditional puts queued for this node (coalesce.go)
}

func newPeer(id, addr string, timeout time.Duration, tc *tls.Config) *peer {
	return &peer{id: id, addr: addr, timeout: timeout, c: newBusClient(addr, timeout, tc)}
}

func (p *peer) close() { p.c.close() }

// Errors internal commands answer with; the router refreshes its table on
// the first (router.ErrStale) and treats the second as a shard that is down.
const (
	errVersionPrefix  = "GSVERSION"
	errNotOwnerPrefix = "GSNOTOWNER"
	errStalePrefix    = "GSSTALE" // a conditional put refused (router.ErrStaleCopy)
)

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
func itoa(n int64) string   { return strconv.FormatInt(n, 10) }

// do runs one internal command: name, password and table version first.
func (p *peer) do(ctx context.Context, pass string, ver int64, name string, args ...any) (any, error) {
	full := make([]any, 0, 4+len(args))
	parent, sub, _ := strings.Cut(name, ".")
	full = append(full, parent, sub, pass, itoa(ver))
	full = append(full, args...)
	v, err := p.c.do(ctx, full...)
	if (brokenConn(err) || errors.Is(err, errPipeBroken)) && ctx.Err() == nil {
		// A pooled connection the peer closed (or that broke) fails
		// without the peer having done anything; every internal command
		// is idempotent, so it goes once more, on a fresh connection
		// (the others pooled likely broke too: the peer restarted).
		p.c.dropIdle()
		v, err = p.c.do(ctx, full...)
	}
	if err != nil && strings.HasPrefix(err.Error(), errVersionPrefix) {
		return nil, fmt.Errorf("node %s (%s) %s: %w: %w", p.id, p.addr, name, router.ErrStale, err)
	}
	if err != nil && strings.HasPrefix(err.Error(), errStalePrefix) {
		return nil, fmt.Errorf("node %s (%s) %s: %w", p.id, p.addr, name, router.ErrStaleCopy)
	}
	if err != nil {
		return nil, fmt.Errorf("node %s (%s) %s: %w", p.id, p.addr, name, err)
	}
	return v, nil
}

// brokenConn reports an error of the connection itself rather than of
// the peer's answer or of a deadline.
func brokenConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// searchArgs sends q's shape: kind 0 circle, 1 box, 2 polygon (then the
// vertex count and the vertices).
func searchArgs(q *geo.Search) []any {
	kind := "0"
	if q.Shape.Box {
		kind = "1"
	}
	p := q.Shape.Polygon
	if p != nil {
		kind = "2"
	}
	args := []any{ftoa(q.Lon), ftoa(q.Lat), kind, ftoa(q.Shape.Radius), ftoa(q.Shape.Width),
		ftoa(q.Shape.Height), ftoa(q.Shape.Unit)}
	if p != nil {
		args = append(args, itoa(int64(p.Len())))
		for i := range p.Len() {
			lon, lat := p.Vertex(i)
			args = append(args, ftoa(lon), ftoa(lat))
		}
	}
	return args
}

// searchCallArgs are a SEARCH's or NEAREST's words; since, when set,
// asks too for the members whose copy the shard lost to handoffs since
// then (router/departures.go).
func searchCallArgs(id shard.ID, k shard.Key, q *geo.Search, minStamp int64, n int, since int64) []any {
	args := append([]any{itoa(int64(id)), itoa(int64(k.DB)), k.Name, itoa(minStamp), itoa(int64(n))}, searchArgs(q)...)
	if since > 0 {
		args = append(args, itoa(since))
	}
	return args
}

// search asks a node for one shard's hits of q and, with since > 0, the
// members whose copy q matched it lost to handoffs since then.
func (p *peer) search(ctx context.Context, pass string, ver int64, id shard.ID, k shard.Key,
	q *geo.Search, minStamp int64, limit int, since int64) ([]shard.Hit, []string, error) {
	v, err := p.do(ctx, pass, ver, "GEOSHARD.SEARCH", searchCallArgs(id, k, q, minStamp, limit, since)...)
	if err != nil {
		return nil, nil, err
	}
	blob, ok := v.(string)
	var departed []string
	if since > 0 {
		arr, _ := v.([]any)
		if ok = len(arr) == 2; ok {
			blob = str(arr[0])
			departed, ok = strs(arr[1])
		}
	}
	hits, err := decodeHitsWire(blob)
	if !ok || err != nil {
		return nil, nil, fmt.Errorf("node %s: GEOSHARD.SEARCH: malformed reply", p.id)
	}
	return hits, departed, nil
}

// nearest asks a node for one shard's n nearest hits of q, as search.
func (p *peer) nearest(ctx context.Context, pass string, ver int64, id shard.ID, k shard.Key,
	q *geo.Search, minStamp int64, n int, since int64) ([]shard.Hit, bool, []string, error) {
	v, err := p.do(ctx, pass, ver, "GEOSHARD.NEAREST", searchCallArgs(id, k, q, minStamp, n, since)...)
	if err != nil {
		return nil, false, nil, err
	}
	arr, _ := v.([]any)
	want := 2
	if since > 0 {
		want = 3
	}
	if len(arr) != want {
		return nil, false, nil, fmt.Errorf("node %s: GEOSHARD.NEAREST: malformed reply", p.id)
	}
	var departed []string
	if since > 0 {
		var ok bool
		if departed, ok = strs(arr[2]); !ok {
			return nil, false, nil, fmt.Errorf("node %s: GEOSHARD.NEAREST: malformed reply", p.id)
		}
	}
	hits, err := decodeHitsWire(str(arr[1]))
	if err != nil {
		return nil, false, nil, fmt.Errorf("node %s: GEOSHARD.NEAREST: %w", p.id, err)
	}
	return hits, str(arr[0]) == "1", departed, nil
}

// strs reads a reply's array of names.
func strs(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		if out[i], ok = x.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// put stores a copy; with expect != 0 the shard's primary refuses it
// (router.ErrStaleCopy) unless the member's copy there has that stamp.
func (p *peer) put(ctx context.Context, pass string, ver int64, id shard.ID, k shard.Key, e shard.Entry, expect int64) error {
	args := make([]any, 6, 7)
	args[0], args[1], args[2] = itoa(int64(id)), itoa(int64(k.DB)), k.Name
	args[3], args[4], args[5] = e.Member, ftoa(e.Score), itoa(e.Stamp)
	if expect != 0 {
		args = append(args, itoa(expect))
	}
	_, err := p.do(ctx, pass, ver, "GEOSHARD.PUT", args...)
	return err
}

// del removes a member's copies from the node's shards ids written no
// later than notAfter; it returns the newest stamp removed (0: none).
func (p *peer) del(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key, member string, notAfter int64) (int64, error) {
	return p.delAs(ctx, pass, ver, "GEOSHARD.DEL", []any{itoa(int64(k.DB)), k.Name, member, itoa(notAfter)}, ids)
}

// delAs sends a delete, cmd args then the shards ids, and reads the
// newest stamp removed.
func (p *peer) delAs(ctx context.Context, pass string, ver int64, cmd string, args []any, ids []shard.ID) (int64, error) {
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, cmd, args...)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return n, nil
}

// get returns the newest copy of a member in the node's shards ids.
func (p *peer) get(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key, member string, minStamp int64) (router.Copy, bool, error) {
	args := []any{itoa(int64(k.DB)), k.Name, member, itoa(minStamp)}
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.GET", args...)
	if err != nil {
		return router.Copy{}, false, err
	}
	arr, _ := v.([]any)
	if len(arr) != 3 {
		return router.Copy{}, false, nil
	}
	id, err1 := strconv.ParseUint(str(arr[0]), 10, 16)
	score, err2 := strconv.ParseFloat(str(arr[1]), 64)
	stamp, err3 := strconv.ParseInt(str(arr[2]), 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return router.Copy{}, false, fmt.Errorf("node %s: GEOSHARD.GET: %w", p.id, err)
	}
	return router.Copy{Shard: shard.ID(id), Score: score, Stamp: stamp}, true, nil
}

// scan returns, per shard of ids, up to want copies within [min, max] in
// sorted-set order (reversed with rev), and whether some shard had more;
// with since > 0, the members whose copy in the range the shards lost to
// handoffs since then.
func (p *peer) scan(ctx context.Context, pass string, ver int64, ids []shard.ID, k shard.Key,
	min, max router.Bound, rev bool, minStamp int64, want int, since int64) ([]shard.Entry, bool, []string, error) {
	args := []any{itoa(int64(k.DB)), k.Name, itoa(minStamp), itoa(since), boolArg(rev), itoa(int64(want)),
		ftoa(min.Score), boolArg(min.Exclusive), ftoa(max.Score), boolArg(max.Exclusive)}
	for _, id := range ids {
		args = append(args, itoa(int64(id)))
	}
	v, err := p.do(ctx, pass, ver, "GEOSHARD.RANGE", args...)
	if err != nil {
		return nil, false, nil, err
	}
	arr, _ := v.([]any)
	var departed []string
	ok := len(arr) == 3
	if ok {
		departed, ok = strs(arr[2])
	}
	if !ok {
		return nil, false, nil, fmt.Errorf("node %s: GEOSHARD.RANGE: malformed reply", p.id)
	}
	out, err := decodeEntriesWire(str(arr[1]))
	if err != nil {
		return nil, false, nil, fmt.Errorf("node %s: GEOSHARD.RANGE: %w", p.id, err)
	}
	return out, str(arr[0]) == "1", departed, nil
}

// owner tells a node where a member's copy now is, after a handoff, so
// its owner cache does not send the next write's delete to the old shard.
// owner tells the node where a handoff put a member; it answers the stamp
// of a newer copy it holds in another shard (0: none; CacheOwner).
func (p *peer) owner(ctx context.Context, pass string, ver int64, k shard.Key, member string, c router.Copy) (int64, error) {
	v, err := p.do(ctx, pass, ver, "GEOSHARD.OWNER", itoa(int64(k.DB)), k.Name, member,
		itoa(int64(c.Shard)), ftoa(c.Score), itoa(c.Stamp))
	n, _ := v.(int64)
	return n, err
}

// drop removes a key from every shard of the node; returns copies removed.
func (p *peer) drop(ctx context.Context, pass string, ver int64, k shard.Key) (int64, error) {
	v, err := p.do(ctx, pass, ver, "GEOSHARD.DROP", itoa(int64(k.DB)), k.Name)
	n, _ := v.(int64)
	return n, err
}

func (p *peer) rename(ctx context.Context, pass string, ver int64, from, to shard.Key) error {
	_, err := p.do(ctx, pass, ver, "GEOSHARD.RENAME", itoa(int64(from.DB)), from.Name, to.Name)
	return err
}

// keys lists the database's keys with live copies on the node.
func (p *peer) keys(ctx context.Context, pass string, ver int64, db int) ([]string, error) {
	v, err := p.do(ctx, pass, ver, "GEOSHARD.KEYS", itoa(int64(db)))
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	out := make([]string, len(arr))
	for i, a := range arr {
		out[i] = str(a)
	}
	return out, nil
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return itoa(x)
	}
	return ""
}
