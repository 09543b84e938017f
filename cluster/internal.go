package cluster

import (
	"context"
	"crypto/subtle"
	"math"
	"strconv"
	"strings"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// Replier is the part of a RESP reply writer internal commands use.
type Replier interface {
	Array(n int)
	BulkString(s string)
	Int(n int64)
	Error(msg string)
}

// ServeInternal answers a node-to-node command: GEOSHARD SUB password
// version args... It is refused without the cluster password, by a node that has
// lost its lease, and when the sender's table version differs from ours
// (after one refresh, in case ours is the stale one).
func (n *Node) ServeInternal(args [][]byte, w Replier) {
	r := n.r
	name := "geoshard." + strings.ToLower(string(args[1]))
	args = args[1:]
	if subtle.ConstantTimeCompare(args[1], []byte(n.cfg.Password)) != 1 {
		w.Error("ERR " + name + ": wrong cluster password")
		return
	}
	if !n.owner.Load() {
		w.Error(errNotOwnerPrefix + " this node has no lease")
		return
	}
	ver, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil {
		w.Error("ERR " + name + ": bad table version")
		return
	}
	t := n.table.Load()
	if ver > t.Version {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		n.refresh(ctx)
		cancel()
		t = n.table.Load()
	}
	if ver != t.Version {
		w.Error(errVersionPrefix + " table version " + itoa(t.Version) + ", request " + itoa(ver))
		return
	}
	p := &parser{args: args[3:]}
	switch name {
	case "geoshard.put":
		internalPut(r, t, p, w)
	case "geoshard.del":
		internalDel(r, t, p, w)
	case "geoshard.get":
		internalGet(r, t, p, w)
	case "geoshard.search", "geoshard.nearest":
		internalSearch(r, t, p, w, name == "geoshard.nearest")
	case "geoshard.range":
		internalRange(r, t, p, w)
	case "geoshard.owner":
		k := p.key()
		member := p.str()
		id := p.int()
		score, stamp := p.float(), p.int()
		if id < 0 || id >= int64(len(t.local)) {
			p.fail("bad shard " + itoa(id))
		}
		if p.ok(w) {
			r.CacheOwner(k, member, router.Copy{Shard: shard.ID(id), Score: score, Stamp: stamp})
			w.Int(1)
		}
	case "geoshard.drop":
		k := p.key()
		if p.ok(w) {
			w.Int(int64(r.DropLocal(k)))
		}
	case "geoshard.rename":
		from := p.key()
		to := shard.Key{DB: from.DB, Name: p.str()}
		if p.ok(w) {
			r.RenameLocal(from, to)
			w.Int(1)
		}
	case "geoshard.keys":
		db := p.int()
		if p.ok(w) {
			names := r.KeysLocal(int(db))
			w.Array(len(names))
			for _, n := range names {
				w.BulkString(n)
			}
		}
	case "geoshard.flush":
		db := p.int()
		if p.ok(w) {
			r.FlushLocal(int(db))
			w.Int(1)
		}
	default:
		w.Error("ERR unknown internal command " + name)
	}
}

// parser reads an internal command's words; the first bad one is kept.
type parser struct {
	args [][]byte
	bad  string
}

func (p *parser) str() string {
	if len(p.args) == 0 {
		p.fail("missing argument")
		return ""
	}
	s := string(p.args[0])
	p.args = p.args[1:]
	return s
}

func (p *parser) fail(msg string) {
	if p.bad == "" {
		p.bad = msg
	}
}

func (p *parser) int() int64 {
	s := p.str()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.fail("bad integer " + strconv.Quote(s))
	}
	return n
}

func (p *parser) float() float64 {
	s := p.str()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail("bad number " + strconv.Quote(s))
	}
	return f
}

func (p *parser) key() shard.Key {
	db := p.int()
	return shard.Key{DB: int(db), Name: p.str()}
}

// shard reads a shard id this node must serve.
func (p *parser) shard(t *Table) shard.ID {
	n := p.int()
	if n < 0 || n >= int64(len(t.local)) {
		p.fail("bad shard " + itoa(n))
		return 0
	}
	if !t.Local(shard.ID(n)) {
		p.fail(errNotOwnerPrefix + " shard " + itoa(n))
	}
	return shard.ID(n)
}

func (p *parser) rest(t *Table) []shard.ID {
	var ids []shard.ID
	for len(p.args) > 0 {
		ids = append(ids, p.shard(t))
	}
	return ids
}

func (p *parser) search() *geo.Search {
	lon, lat := p.float(), p.float()
	kind := p.str()
	sh := geo.Shape{Box: kind == "1", Radius: p.float(), Width: p.float(), Height: p.float(), Unit: p.float()}
	if kind == "2" {
		sh.Polygon = p.polygon()
	}
	if p.bad != "" || !geo.Valid(lon, lat) && sh.Polygon == nil {
		p.fail("bad search")
		return nil
	}
	return geo.NewSearch(lon, lat, sh)
}

// polygon reads a vertex count and the vertices of a BYPOLYGON search.
func (p *parser) polygon() *geo.Polygon {
	n := p.int()
	if n < 3 || n > int64(len(p.args))/2 {
		p.fail("bad polygon")
		return nil
	}
	coords := make([]float64, 2*n)
	for i := range coords {
		coords[i] = p.float()
	}
	for i := 0; i < len(coords); i += 2 {
		if !geo.Valid(coords[i], coords[i+1]) {
			p.fail("bad polygon")
			return nil
		}
	}
	return geo.NewPolygon(coords)
}

// ok reports whether every word parsed, else answers the error.
func (p *parser) ok(w Replier) bool {
	if p.bad == "" {
		return true
	}
	if strings.HasPrefix(p.bad, errNotOwnerPrefix) {
		w.Error(p.bad)
	} else {
		w.Error("ERR internal command: " + p.bad)
	}
	return false
}

func internalPut(r *router.Router, t *Table, p *parser, w Replier) {
	id := p.shard(t)
	k := p.key()
	member, score, stamp := p.str(), p.float(), p.int()
	if !p.ok(w) {
		return
	}
	r.PutLocal(id, k, shard.NewEntry(member, score, stamp))
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
	c, found := r.GetLocal(ids, k, member, cut)
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
	if !p.ok(w) {
		return
	}
	hits, complete := r.SearchLocal(id, k, q, cut, int(n), nearest)
	if nearest {
		w.Array(2)
		w.BulkString(boolArg(complete))
	}
	w.BulkString(string(encodeHits(hits)))
}

func internalRange(r *router.Router, t *Table, p *parser, w Replier) {
	k := p.key()
	cut := p.int()
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
	es, truncated := r.ScanLocal(ids, k, min, max, rev, cut, int(want))
	w.Array(2)
	w.BulkString(boolArg(truncated))
	w.BulkString(string(encodeEntries(es)))
}
