package commands

import (
	"cmp"
	"math"
	"sort"

	"geoshard/geo"
)

func init() {
	del := func(e *Engine, c *Client, args [][]byte) {
		n := 0
		var failed error
		drop := e.deleteKey
		if e.letGoMaps(c) {
			drop = e.dropGeo
		}
		for _, k := range args[1:] {
			ok, err := drop(c, c.db, string(k))
			if ok {
				n++
			}
			failed = cmp.Or(failed, err)
		}
		c.changed(n)
		if tryAgain(c, failed) {
			return // cluster mode: some node may still hold members
		}
		c.W.Int(int64(n))
	}
	flush := func(all bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { flushGeneric(e, c, args, all) }
	}
	rename := func(nx bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { renameGeneric(e, c, args, nx) }
	}
	register(
		&command{name: "del", arity: -2, flags: []string{"write"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: del, aloneIf: mapsAlone},
		&command{name: "unlink", arity: -2, flags: []string{"write", "fast"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: del, aloneIf: mapsAlone},
		&command{name: "exists", arity: -2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: exists, prepare: kindOfAll, clusterOnly: true},
		&command{name: "type", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: typeCmd, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "rename", arity: 3, flags: []string{"write"}, firstKey: 1, lastKey: 2, keyStep: 1, handler: rename(false), exclusive: true, prepare: kindOfTwo, clusterOnly: true},
		&command{name: "renamenx", arity: 3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 2, keyStep: 1, handler: rename(true), exclusive: true, prepare: kindOfTwo, clusterOnly: true},
		&command{name: "keys", arity: 2, flags: []string{"readonly"}, handler: keys},
		&command{name: "dbsize", arity: 1, flags: []string{"readonly", "fast"}, handler: dbsize},
		&command{name: "flushdb", arity: -1, flags: []string{"write"}, handler: flush(false), exclusive: true, apart: true},
		&command{name: "flushall", arity: -1, flags: []string{"write"}, handler: flush(true), exclusive: true, apart: true},
		&command{name: "select", arity: 2, flags: []string{"loading", "stale", "fast"}, handler: selectCmd},
	)
}

const errNoSuchKey = "ERR no such key"

// exists: EXISTS key [key ...]; a key named twice counts twice.
func exists(e *Engine, c *Client, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		kd, err := e.tryKindOf(c, k)
		if tryAgain(c, err) {
			return
		}
		if kd != none {
			n++
		}
	}
	c.W.Int(int64(n))
}

// typeCmd: TYPE key
func typeCmd(e *Engine, c *Client, args [][]byte) {
	kd, err := e.tryKindOf(c, args[1])
	if tryAgain(c, err) {
		return
	}
	c.W.Simple(kd.String())
}

// tryKindOf is kindOf that, in cluster mode, fails when no node that
// answered holds a member of the key and some node did not answer.
func (e *Engine) tryKindOf(c *Client, key []byte) (kind, error) {
	if _, ok := e.dbs[c.db].strings[string(key)]; ok {
		return kindString, nil
	}
	geo, err := e.geoExists(c, key)
	if geo {
		return kindZset, nil // a node holds members: the key exists
	}
	return none, err
}

// renameGeneric: RENAME key newkey / RENAMENX key newkey. The value keeps
// its TTL; whatever newkey held goes, TTL included.
func renameGeneric(e *Engine, c *Client, args [][]byte, nx bool) {
	src, dst := string(args[1]), string(args[2])
	// In cluster mode a name may be a geo key on a node that did not
	// answer: newkey's members would stay beside what is renamed onto it.
	k, err := e.tryKindOf(c, args[1])
	if tryAgain(c, err) {
		return
	}
	if k == none {
		c.W.Error(errNoSuchKey)
		return
	}
	reply := func(done bool) {
		switch {
		case !nx:
			c.W.OK()
		case done:
			c.W.Int(1)
		default:
			c.W.Int(0)
		}
	}
	if src == dst {
		reply(false)
		return
	}
	d := e.dbs[c.db]
	at, hasTTL := d.expires[src]
	kd, err := e.tryKindOf(c, args[2])
	if tryAgain(c, err) {
		return
	}
	if kd != none {
		if nx {
			reply(false)
			return
		}
		if _, err := e.deleteKey(c, c.db, dst); tryAgain(c, err) {
			return // cluster mode: newkey's members may remain; nothing renamed
		}
	}
	switch k {
	case kindString:
		d.strings[dst] = d.strings[src]
		delete(d.strings, src)
	case kindZset:
		e.outside(c, func() { err = e.Router().TryRename(c.key(args[1]), c.key(args[2])) })
	}
	if hasTTL {
		d.expires[dst] = at
	}
	if tryAgain(c, err) {
		// Cluster mode: refused (nothing renamed), or some node still
		// holds members under src: src keeps its TTL, so whatever is
		// under either name expires (a TTL of a name with no members
		// is forgotten: staleTTL).
		return
	}
	delete(d.expires, src)
	reply(true)
}

// liveKeys returns the names of the client's database's keys that exist
// and have not expired, sorted. In cluster mode it fails when some node
// could not be asked, and asks with the keyspace let go (Engine.outside):
// KEYS, DBSIZE and SCAN held it shared across the calls, and while a
// peer hung every SET through the node waited behind them, and every
// command behind the SET (SET p99 3.0 s, TestClusterReadsHungNode).
func (e *Engine) liveKeys(c *Client) ([]string, error) {
	var names []string
	var err error
	e.outside(c, func() { names, err = e.Router().TryKeys(c.db) })
	if err != nil {
		return nil, err
	}
	return e.dbs[c.db].live(names, nowMS()), nil
}

// live returns, sorted, the database's strings and the geo keys named
// (the router's list) that have not expired.
func (d *db) live(geoKeys []string, now int64) []string {
	seen := make(map[string]bool, len(d.strings))
	out := make([]string, 0, len(d.strings)+len(geoKeys))
	add := func(k string) {
		if !seen[k] && !d.expired(k, now) {
			seen[k] = true
			out = append(out, k)
		}
	}
	for k := range d.strings {
		add(k)
	}
	for _, k := range geoKeys {
		add(k)
	}
	sort.Strings(out)
	return out
}

// keys: KEYS pattern
func keys(e *Engine, c *Client, args [][]byte) {
	pattern := string(args[1])
	var out []string
	live, err := e.liveKeys(c)
	if tryAgain(c, err) {
		return
	}
	for _, k := range live {
		if globMatch(pattern, k) {
			out = append(out, k)
		}
	}
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

// dbsize: DBSIZE
func dbsize(e *Engine, c *Client, args [][]byte) {
	live, err := e.liveKeys(c)
	if tryAgain(c, err) {
		return
	}
	c.W.Int(int64(len(live)))
}

// flushGeneric: FLUSHDB / FLUSHALL [ASYNC|SYNC]
func flushGeneric(e *Engine, c *Client, args [][]byte, all bool) {
	if len(args) > 2 || (len(args) == 2 && !optIs(args[1], "sync") && !optIs(args[1], "async")) {
		c.W.Error(errSyntax)
		return
	}
	db := c.db
	if all {
		db = -1
	}
	// Geo keys first: in cluster mode a flush that could not reach every
	// holder answers -TRYAGAIN (and the client tries again).
	var err error
	e.outside(c, func() { err = e.Router().TryFlush(db) })
	if tryAgain(c, err) {
		return
	}
	for i, d := range e.dbs {
		if all || i == c.db {
			clear(d.strings)
			clear(d.expires)
		}
	}
	c.W.OK()
}

// selectCmd: SELECT index
func selectCmd(e *Engine, c *Client, args [][]byte) {
	n, ok := geo.ParseInt(args[1])
	if !ok {
		c.W.Error(errNotInt)
		return
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.W.Error("ERR value is out of range, value must between -2147483648 and 2147483647")
		return
	}
	if n < 0 || n >= Databases {
		c.W.Error("ERR DB index is out of range")
		return
	}
	c.info.Lock()
	c.db = int(n)
	c.info.Unlock()
	c.W.OK()
}
