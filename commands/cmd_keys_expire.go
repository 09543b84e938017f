package commands

import (
	"math"

	"geoshard/geo"
)

func init() {
	ttl := func(ms, abs bool) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { ttlGeneric(e, c, args, ms, abs) }
	}
	expire := func(abs bool, unit int64) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { expireGeneric(e, c, args, abs, unit) }
	}
	register(
		&command{name: "expire", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(false, 1000), exclusive: true, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "pexpire", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(false, 1), exclusive: true, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "expireat", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(true, 1000), exclusive: true, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "pexpireat", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: expire(true, 1), exclusive: true, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "ttl", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(false, false), prepare: kindOfFirst, clusterOnly: true},
		&command{name: "pttl", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(true, false), prepare: kindOfFirst, clusterOnly: true},
		&command{name: "expiretime", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(false, true), prepare: kindOfFirst, clusterOnly: true},
		&command{name: "pexpiretime", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: ttl(true, true), prepare: kindOfFirst, clusterOnly: true},
		&command{name: "persist", arity: 2, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: persist, exclusive: true, prepare: kindOfFirst, clusterOnly: true},
	)
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
	k, err := e.tryKindOf(c, args[1]) // cluster mode: unknown is not missing
	if tryAgain(c, err) {
		return
	}
	if k == none {
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
		if _, err := e.deleteKey(c, c.db, key); tryAgain(c, err) {
			return // cluster mode: the key stays, with its TTL
		}
	} else {
		d.expires[key] = when
	}
	c.W.Int(1)
}

// ttlGeneric runs TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for no key,
// -1 for no TTL.
func ttlGeneric(e *Engine, c *Client, args [][]byte, ms, abs bool) {
	k, err := e.tryKindOf(c, args[1]) // cluster mode: unknown is not missing
	if tryAgain(c, err) {
		return
	}
	if k == none {
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
	if _, ok := d.expires[key]; !ok {
		c.W.Int(0)
		return
	}
	k, err := e.tryKindOf(c, args[1]) // cluster mode: unknown is not missing
	if tryAgain(c, err) {
		return
	}
	if k == none {
		c.W.Int(0)
		return
	}
	delete(d.expires, key)
	c.W.Int(1)
}
