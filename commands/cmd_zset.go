package commands

import (
	"geoshard/geo"
	"geoshard/router"
)

func init() {
	zrange := func(kind rangeKind, dir rangeDir) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { zrangeGeneric(e, c, args, kind, dir) }
	}
	register(
		&command{name: "zadd", arity: -4, flags: []string{"write", "denyoom", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zadd,
			aloneIf: func(e *Engine, _ *Client, args [][]byte) bool { return zaddIncr(args) && incrAlone(e) }},
		&command{name: "zincrby", arity: 4, flags: []string{"write", "denyoom", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zincrby,
			aloneIf: func(e *Engine, _ *Client, _ [][]byte) bool { return incrAlone(e) }},
		&command{name: "zrem", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrem, aloneIf: zremAlone},
		&command{name: "zscore", arity: 3, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zscore},
		&command{name: "zmscore", arity: -3, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zmscore},
		&command{name: "zcard", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zcard},
		&command{name: "zcount", arity: 4, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zcount},
		&command{name: "zrank", arity: 3, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: func(e *Engine, c *Client, args [][]byte) { zrank(e, c, args, false) }},
		&command{name: "zrevrank", arity: 3, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: func(e *Engine, c *Client, args [][]byte) { zrank(e, c, args, true) }},
		&command{name: "zrange", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeAuto, dirAuto)},
		&command{name: "zrevrange", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeRank, dirReverse)},
		&command{name: "zrangebyscore", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeScore, dirForward)},
		&command{name: "zrevrangebyscore", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeScore, dirReverse)},
		&command{name: "zrangebylex", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeLex, dirForward)},
		&command{name: "zrevrangebylex", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrange(rangeLex, dirReverse)},
	)
}

const (
	errNaNScore   = "ERR resulting score is not a number (NaN)"
	errRangeFloat = "ERR min or max is not a float"
	errRangeLex   = "ERR min or max not valid string range item"
)

// incrAlone: in a single node an increment reads and writes a score with
// the keyspace alone, so no increment is lost; in cluster mode the write
// is conditional on the copy read (router.TryIncr), which orders it also
// against other nodes' increments.
func incrAlone(e *Engine) bool { return !e.Router().Clustered() }

// zremAlone: removing the last member deletes the key and its TTL, which
// lives in the expires map. In cluster mode that takes counting the key on
// every node, done only for a key with a TTL here: without one there is
// nothing to delete but the members.
func zremAlone(e *Engine, c *Client, args [][]byte) bool {
	return !e.Router().Clustered() || e.dbs[c.db].hasTTL(args[1])
}

func zaddIncr(args [][]byte) bool {
	for _, a := range args[2:] {
		switch {
		case optIs(a, "incr"):
			return true
		case optIs(a, "nx"), optIs(a, "xx"), optIs(a, "ch"), optIs(a, "gt"), optIs(a, "lt"):
		default:
			return false
		}
	}
	return false
}

// zadd: ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
func zadd(e *Engine, c *Client, args [][]byte) {
	var f router.AddFlags
	ch, incr := false, false
	i := 2
options:
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case optIs(a, "nx"):
			f.NX = true
		case optIs(a, "xx"):
			f.XX = true
		case optIs(a, "ch"):
			ch = true
		case optIs(a, "incr"):
			incr = true
		case optIs(a, "gt"):
			f.GT = true
		case optIs(a, "lt"):
			f.LT = true
		default:
			break options
		}
	}
	zaddPairs(e, c, args[1], args[i:], f, ch, incr)
}

// zincrby: ZINCRBY key increment member
func zincrby(e *Engine, c *Client, args [][]byte) {
	zaddPairs(e, c, args[1], args[2:], router.AddFlags{}, false, true)
}

// zaddPairs checks and applies ZADD's score-member pairs in Redis's order:
// shape, option conflicts, every score, then the key's type.
func zaddPairs(e *Engine, c *Client, key []byte, pairs [][]byte, f router.AddFlags, ch, incr bool) {
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		c.W.Error(errSyntax)
		return
	}
	if f.NX && f.XX {
		c.W.Error("ERR XX and NX options at the same time are not compatible")
		return
	}
	if (f.GT && f.NX) || (f.LT && f.NX) || (f.GT && f.LT) {
		c.W.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	}
	if incr && len(pairs) > 2 {
		c.W.Error("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, len(pairs)/2)
	for j := range scores {
		x, ok := geo.ParseFloat(pairs[2*j])
		if !ok {
			c.W.Error(errNotFloat)
			return
		}
		scores[j] = x
	}
	if !e.geoOnly(c, key) {
		return
	}
	k := c.key(key)
	if incr {
		score, ok, nan, err := e.Router().TryIncr(k, string(pairs[1]), scores[0], f)
		switch {
		case tryAgain(c, err): // cluster mode: not incremented
		case nan:
			c.W.Error(errNaNScore)
		case !ok:
			c.W.Null()
		default:
			writeScore(c, score)
		}
		return
	}
	e.addAll(c, k, func(j int) []byte { return pairs[2*j+1] }, scores, f, ch)
}

// tryAgain answers a cluster read that could not reach every shard it
// needs with -TRYAGAIN, as a write that cannot be placed is, and reports
// whether it did; err is always nil in single-node mode.
func tryAgain(c *Client, err error) bool {
	if err == nil {
		return false
	}
	c.W.Error("TRYAGAIN " + err.Error())
	return true
}

// zrem: ZREM key member [member ...]
func zrem(e *Engine, c *Client, args [][]byte) {
	dropsTTL := zremAlone(e, c, args) // then the keyspace is held alone
	if !e.geoOnly(c, args[1]) {
		return
	}
	k := c.key(args[1])
	if !e.Router().Clustered() && e.Router().Card(k) == 0 {
		c.W.Int(0)
		return
	}
	n, emptied := 0, false
	var err error
	e.outside(c, func() { // with the keyspace alone: dropsTTL in cluster mode
		for _, m := range args[2:] {
			var removed bool
			if removed, err = e.Router().TryRemove(k, string(m)); removed {
				n++
			}
			if err != nil {
				return
			}
		}
		emptied = dropsTTL && n > 0 && e.Router().Card(k) == 0
	})
	if err != nil {
		// In cluster mode a copy may be left (a holder away or not
		// answering): the client must not hear that it is gone.
		c.changed(n)
		tryAgain(c, err)
		return
	}
	if emptied {
		// The last member took the key with it: its TTL goes too (a
		// drop of no members that fails leaves an empty key's TTL, which
		// the expiry cycle forgets).
		_, _ = e.deleteKey(c, c.db, string(args[1]))
	}
	c.changed(n)
	c.W.Int(int64(n))
}

// zscore: ZSCORE key member
func zscore(e *Engine, c *Client, args [][]byte) {
	if !e.geoOnly(c, args[1]) {
		return
	}
	score, ok, err := e.Router().TryScore(c.key(args[1]), string(args[2]))
	if tryAgain(c, err) {
		return
	}
	if !ok {
		c.W.Null()
		return
	}
	writeScore(c, score)
}

// zmscore: ZMSCORE key member [member ...]
func zmscore(e *Engine, c *Client, args [][]byte) {
	if !e.geoOnly(c, args[1]) {
		return
	}
	e.eachScore(c, c.key(args[1]), args[2:], c.W.Null, func(score float64) { writeScore(c, score) })
}

// zcard: ZCARD key
func zcard(e *Engine, c *Client, args [][]byte) {
	if !e.geoOnly(c, args[1]) {
		return
	}
	n, err := e.Router().TryCard(c.key(args[1]))
	if tryAgain(c, err) {
		return
	}
	c.W.Int(int64(n))
}

// zcount: ZCOUNT key min max
func zcount(e *Engine, c *Client, args [][]byte) {
	lo, hi, ok := parseScoreRange(args[2], args[3])
	if !ok {
		c.W.Error(errRangeFloat)
		return
	}
	if !e.geoOnly(c, args[1]) {
		return
	}
	n, err := e.Router().TryCount(c.key(args[1]), lo, hi)
	if tryAgain(c, err) {
		return
	}
	c.W.Int(int64(n))
}

// zrank: Z[REV]RANK key member
func zrank(e *Engine, c *Client, args [][]byte, rev bool) {
	if !e.geoOnly(c, args[1]) {
		return
	}
	rank, ok, err := e.Router().TryRank(c.key(args[1]), string(args[2]), rev)
	if tryAgain(c, err) {
		return
	}
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(int64(rank))
}
