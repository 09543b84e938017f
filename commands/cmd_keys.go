package commands

import (
	"hash/fnv"
	"math"
	"sort"
	"strconv"

	"geoshard/geo"
)

func init() {
	del := func(e *Engine, c *Client, args [][]byte) {
		n := 0
		for _, k := range args[1:] {
			if e.deleteKey(c.db, string(k)) {
				n++
			}
		}
		c.W.Int(int64(n))
	}
	ttl := func(ms, abs bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { ttlGeneric(e, c, args, ms, abs) }
	}
	expire := func(abs bool, unit int64) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { expireGeneric(e, c, args, abs, unit) }
	}
	flush := func(all bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { flushGeneric(e, c, args, all) }
	}
	rename := func(nx bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { renameGeneric(e, c, args, nx) }
	}
	register(
		&command{name: "del", arity: -2, flags: []string{"write"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: del, exclusive: true},
		&command{name: "unlink", arity: -2, flags: []string{"write", "fast"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: del, exclusive: true},
		&command{name: "exists", arity: -2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: -1, keyStep: 1, handler: exists},
		&command{name: "type", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: typeCmd},
		&command{name: "rename", arity: 3, flags: []string{"write"}, firstKey: 1, lastKey: 2, keyStep: 1, handler: rename(false), exclusive: true},
		&command{name: "renamenx", arity: 3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 2, keyStep: 1, handler: rename(true), exclusive: true},
		&command{name: "expire", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(false, 1000), exclusive: true},
		&command{name: "pexpire", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(false, 1), exclusive: true},
		&command{name: "expireat", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(true, 1000), exclusive: true},
		&command{name: "pexpireat", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(true, 1), exclusive: true},
		&command{name: "ttl", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(false, false)},
		&command{name: "pttl", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(true, false)},
		&command{name: "expiretime", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(false, true)},
		&command{name: "pexpiretime", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(true, true)},
		&command{name: "persist", arity: 2, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: persist, exclusive: true},
		&command{name: "keys", arity: 2, flags: []string{"readonly"}, handler: keys},
		&command{name: "scan", arity: -2, flags: []string{"readonly"}, handler: scan},
		&command{name: "dbsize", arity: 1, flags: []string{"readonly", "fast"}, handler: dbsize},
		&command{name: "flushdb", arity: -1, flags: []string{"write"}, handler: flush(false), exclusive: true},
		&command{name: "flushall", arity: -1, flags: []string{"write"}, handler: flush(true), exclusive: true},
		&command{name: "select", arity: 2, flags: []string{"loading", "stale", "fast"}, handler: selectCmd},
	)
}

const errNoSuchKey = "ERR no such key"

// exists: EXISTS key [key ...]; a key named twice counts twice.
func exists(e *Engine, c *Client, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		if e.kindOf(c, k) != none {
			n++
		}
	}
	c.W.Int(int64(n))
}

// typeCmd: TYPE key
func typeCmd(e *Engine, c *Client, args [][]byte) {
	c.W.Simple(e.kindOf(c, args[1]).String())
}

// renameGeneric: RENAME key newkey / RENAMENX key newkey. The value keeps
// its TTL; whatever newkey held goes, TTL included.
func renameGeneric(e *Engine, c *Client, args [][]byte, nx bool) {
	src, dst := string(args[1]), string(args[2])
	k := e.kindOf(c, args[1])
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
	if e.kindOf(c, args[2]) != none {
		if nx {
			reply(false)
			return
		}
		e.deleteKey(c.db, dst)
	}
	switch k {
	case kindString:
		d.strings[dst] = d.strings[src]
		delete(d.strings, src)
	case kindZset:
		e.Router().Rename(c.key(args[1]), c.key(args[2]))
	}
	delete(d.expires, src)
	if hasTTL {
		d.expires[dst] = at
	}
	reply(true)
}

// expireGeneric runs EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT with 7.0's
// NX/XX/GT/LT; unit is the milliseconds in one unit of the argument.
func expireGeneric(e *Engine, c *Client, args [][]byte, abs bool, unit int64) {
	var nx, xx, gt, lt bool
	for _, a := range args[3:] {
		switch {
		case optIs(a, "nx"):
			nx = true
		case optIs(a, "xx"):
			xx = true
		case optIs(a, "gt"):
			gt = true
		case optIs(a, "lt"):
			lt = true
		default:
			c.W.Error("ERR Unsupported option " + string(cstr(a)))
			return
		}
	}
	if nx && (xx || gt || lt) {
		c.W.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if gt && lt {
		c.W.Error("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := geo.ParseInt(args[2])
	if !ok {
		c.W.Error(errNotInt)
		return
	}
	badTime := "ERR invalid expire time in '" + string(lower(nil, args[0])) + "' command"
	if unit > 1 {
		if when > math.MaxInt64/unit || when < math.MinInt64/unit {
			c.W.Error(badTime)
			return
		}
		when *= unit
	}
	now := nowMS()
	base := int64(0)
	if !abs {
		base = now
	}
	if when > math.MaxInt64-base {
		c.W.Error(badTime)
		return
	}
	when += base
	key := string(args[1])
	if e.kindOf(c, args[1]) == none {
		c.W.Int(0)
		return
	}
	d := e.dbs[c.db]
	cur, has := d.expires[key]
	switch {
	case nx && has, xx && !has:
		c.W.Int(0)
		return
	case gt && (!has || when <= cur): // no TTL counts as infinite
		c.W.Int(0)
		return
	case lt && has && when >= cur:
		c.W.Int(0)
		return
	}
	if when <= now {
		e.deleteKey(c.db, key)
	} else {
		d.expires[key] = when
	}
	c.W.Int(1)
}

// ttlGeneric runs TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for no key,
// -1 for no TTL.
func ttlGeneric(e *Engine, c *Client, args [][]byte, ms, abs bool) {
	if e.kindOf(c, args[1]) == none {
		c.W.Int(-2)
		return
	}
	at, ok := e.dbs[c.db].expires[string(args[1])]
	if !ok {
		c.W.Int(-1)
		return
	}
	v := at
	if !abs {
		v = max(at-nowMS(), 0)
	}
	if !ms {
		v = (v + 500) / 1000
	}
	c.W.Int(v)
}

// persist: PERSIST key
func persist(e *Engine, c *Client, args [][]byte) {
	d := e.dbs[c.db]
	key := string(args[1])
	if _, ok := d.expires[key]; !ok || e.kindOf(c, args[1]) == none {
		c.W.Int(0)
		return
	}
	delete(d.expires, key)
	c.W.Int(1)
}

// liveKeys returns the names of the database's keys that exist and have
// not expired, sorted.
func (e *Engine) liveKeys(dbIndex int) []string {
	d := e.dbs[dbIndex]
	now := nowMS()
	seen := make(map[string]bool, len(d.strings))
	out := make([]string, 0, len(d.strings))
	add := func(k string) {
		if !seen[k] && !d.expired(k, now) {
			seen[k] = true
			out = append(out, k)
		}
	}
	for k := range d.strings {
		add(k)
	}
	for _, k := range e.Router().Keys(dbIndex) {
		add(k)
	}
	sort.Strings(out)
	return out
}

// keys: KEYS pattern
func keys(e *Engine, c *Client, args [][]byte) {
	pattern := string(args[1])
	var out []string
	for _, k := range e.liveKeys(c.db) {
		if globMatch(pattern, k) {
			out = append(out, k)
		}
	}
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

// scanHash places a key in SCAN's order. Ordering by a hash of the name
// (never 0, which is the cursor that starts and ends a scan) keeps the
// cursor meaningful while keys come and go: every key present for the
// whole scan is returned, as Redis promises.
func scanHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return max(h.Sum64(), 1)
}

// parseCursor reads a SCAN cursor as Redis does with strtoul: a sign is
// allowed ("-1" wraps around), leading space, trailing bytes and overflow
// are not, and an empty cursor is 0.
func parseCursor(b []byte) (uint64, bool) {
	b = cstr(b)
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	switch b[0] {
	case '+', '-':
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil || b[0] == '+' || b[0] == '-' {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// scan: SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func scan(e *Engine, c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[1])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	count := int64(10)
	var pattern, typeName []byte
	for i := 2; i < len(args); i += 2 {
		if i+1 >= len(args) {
			c.W.Error(errSyntax)
			return
		}
		switch a := args[i]; {
		case optIs(a, "count"):
			if count, ok = geo.ParseInt(args[i+1]); !ok {
				c.W.Error(errNotInt)
				return
			}
			if count < 1 {
				c.W.Error(errSyntax)
				return
			}
		case optIs(a, "match"):
			pattern = args[i+1]
		case optIs(a, "type"):
			typeName = cstr(args[i+1])
		default:
			c.W.Error(errSyntax)
			return
		}
	}
	type entry struct {
		hash uint64
		name string
	}
	var order []entry
	for _, k := range e.liveKeys(c.db) {
		if h := scanHash(k); h >= cursor {
			order = append(order, entry{h, k})
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].hash != order[j].hash {
			return order[i].hash < order[j].hash
		}
		return order[i].name < order[j].name
	})
	// Take count keys, then the rest of a run of equal hashes, so that the
	// next cursor never splits one.
	n := min(int(count), len(order))
	for n > 0 && n < len(order) && order[n].hash == order[n-1].hash {
		n++
	}
	next := uint64(0)
	if n < len(order) {
		next = order[n].hash
	}
	// As in Redis, MATCH and TYPE filter what the step visited, so a page
	// may come back empty with a cursor that is not 0.
	var out []string
	for _, en := range order[:n] {
		if pattern != nil && !globMatch(string(pattern), en.name) {
			continue
		}
		if typeName != nil && !eq(typeName, e.kindOf(c, []byte(en.name)).String()) {
			continue
		}
		out = append(out, en.name)
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

// dbsize: DBSIZE
func dbsize(e *Engine, c *Client, args [][]byte) {
	c.W.Int(int64(len(e.liveKeys(c.db))))
}

// flushGeneric: FLUSHDB / FLUSHALL [ASYNC|SYNC]
func flushGeneric(e *Engine, c *Client, args [][]byte, all bool) {
	if len(args) > 2 || (len(args) == 2 && !optIs(args[1], "sync") && !optIs(args[1], "async")) {
		c.W.Error(errSyntax)
		return
	}
	for i, d := range e.dbs {
		if all || i == c.db {
			clear(d.strings)
			clear(d.expires)
		}
	}
	if all {
		e.Router().Flush(-1)
	} else {
		e.Router().Flush(c.db)
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
