package commands

import (
	"math"
	"strconv"

	"geoshard/geo"
	"geoshard/router"
)

func init() {
	zrange := func(kind rangeKind, dir rangeDir) func(e *Engine, c *Client, args [][]byte) {
		return func(e *Engine, c *Client, args [][]byte) { zrangeGeneric(e, c, args, kind, dir) }
	}
	register(
		&command{name: "zadd", arity: -4, flags: []string{"write", "denyoom", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zadd, exclusiveIf: zaddIncr},
		// ZINCRBY reads and writes a score: alone, so no increment is lost.
		&command{name: "zincrby", arity: 4, flags: []string{"write", "denyoom", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zincrby, exclusive: true},
		// ZREM is exclusive: removing the last member deletes the key and
		// its TTL, which lives in the expires map.
		&command{name: "zrem", arity: -3, flags: []string{"write", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: zrem, exclusive: true},
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
	errNaNScore    = "ERR resulting score is not a number (NaN)"
	errRangeFloat  = "ERR min or max is not a float"
	errRangeLex    = "ERR min or max not valid string range item"
	errLimitByRank = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errScoresByLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
)

// cstr cuts an argument at its first NUL byte: Redis compares options
// with strcasecmp, which stops there.
func cstr(b []byte) []byte {
	for i, ch := range b {
		if ch == 0 {
			return b[:i]
		}
	}
	return b
}

// optIs reports whether an argument is the option word lower, as Redis's
// strcasecmp sees it.
func optIs(b []byte, lower string) bool { return eq(cstr(b), lower) }

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
	if e.isString(c, key) {
		c.W.Error(errWrongType)
		return
	}
	k := c.key(key)
	if incr {
		// The command holds the keyspace alone (zaddIncr), so the score
		// read here is still current when it is written back.
		member := string(pairs[1])
		score := scores[0]
		cur, exists := e.Router().Score(k, member)
		switch {
		case f.NX && exists, f.XX && !exists:
			c.W.Null()
			return
		case exists:
			score += cur
			if math.IsNaN(score) {
				c.W.Error(errNaNScore)
				return
			}
			if (f.GT && score <= cur) || (f.LT && score >= cur) {
				c.W.Null()
				return
			}
		}
		// The router stores -0 as Redis would.
		if _, _, err := e.Router().TryAdd(k, member, score, router.AddFlags{}); err != nil {
			c.W.Error("TRYAGAIN " + err.Error())
			return
		}
		writeScore(c, score)
		return
	}
	e.addAll(c, k, func(j int) []byte { return pairs[2*j+1] }, scores, f, ch)
}

// zrem: ZREM key member [member ...]
func zrem(e *Engine, c *Client, args [][]byte) {
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	k := c.key(args[1])
	if e.Router().Card(k) == 0 {
		c.W.Int(0)
		return
	}
	n := 0
	for _, m := range args[2:] {
		if e.Router().Remove(k, string(m)) {
			n++
		}
	}
	if e.Router().Card(k) == 0 {
		// The last member took the key with it: its TTL goes too.
		e.deleteKey(c.db, string(args[1]))
	}
	c.W.Int(int64(n))
}

// zscore: ZSCORE key member
func zscore(e *Engine, c *Client, args [][]byte) {
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	score, ok := e.Router().Score(c.key(args[1]), string(args[2]))
	if !ok {
		c.W.Null()
		return
	}
	writeScore(c, score)
}

// zmscore: ZMSCORE key member [member ...]
func zmscore(e *Engine, c *Client, args [][]byte) {
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	k := c.key(args[1])
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		if score, ok := e.Router().Score(k, string(m)); ok {
			writeScore(c, score)
		} else {
			c.W.Null()
		}
	}
}

// zcard: ZCARD key
func zcard(e *Engine, c *Client, args [][]byte) {
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	c.W.Int(int64(e.Router().Card(c.key(args[1]))))
}

// zcount: ZCOUNT key min max
func zcount(e *Engine, c *Client, args [][]byte) {
	lo, hi, ok := parseScoreRange(args[2], args[3])
	if !ok {
		c.W.Error(errRangeFloat)
		return
	}
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	c.W.Int(int64(len(e.Router().Range(c.key(args[1]), lo, hi, false, 0, -1))))
}

// zrank: Z[REV]RANK key member
func zrank(e *Engine, c *Client, args [][]byte, rev bool) {
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	rank, ok := e.Router().Rank(c.key(args[1]), string(args[2]), rev)
	if !ok {
		c.W.Null()
		return
	}
	c.W.Int(int64(rank))
}

// rangeKind is how a ZRANGE-family command reads its min and max.
type rangeKind int

const (
	rangeAuto  rangeKind = iota // ZRANGE: by index unless BYSCORE/BYLEX
	rangeRank                   // by index
	rangeScore                  // by score
	rangeLex                    // by member bytes
)

// rangeDir is a ZRANGE-family command's direction; only ZRANGE leaves it
// to the REV option.
type rangeDir int

const (
	dirAuto rangeDir = iota
	dirForward
	dirReverse
)

// zrangeGeneric runs ZRANGE and its older forms (ZREVRANGE,
// Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX) as Redis's zrangeGenericCommand:
// options, their conflicts, the range, then the key.
func zrangeGeneric(e *Engine, c *Client, args [][]byte, kind rangeKind, dir rangeDir) {
	withScores := false
	offset, limit := int64(0), int64(-1)
	for j := 4; j < len(args); j++ {
		left := len(args) - j - 1
		switch a := args[j]; {
		case optIs(a, "withscores"):
			withScores = true
		case optIs(a, "limit") && left >= 2:
			var ok bool
			if offset, ok = geo.ParseInt(args[j+1]); !ok {
				c.W.Error(errNotInt)
				return
			}
			if limit, ok = geo.ParseInt(args[j+2]); !ok {
				c.W.Error(errNotInt)
				return
			}
			j += 2
		case dir == dirAuto && optIs(a, "rev"):
			dir = dirReverse
		case kind == rangeAuto && optIs(a, "bylex"):
			kind = rangeLex
		case kind == rangeAuto && optIs(a, "byscore"):
			kind = rangeScore
		default:
			c.W.Error(errSyntax)
			return
		}
	}
	if kind == rangeAuto {
		kind = rangeRank
	}
	rev := dir == dirReverse
	if limit != -1 && kind == rangeRank {
		c.W.Error(errLimitByRank)
		return
	}
	if withScores && kind == rangeLex {
		c.W.Error(errScoresByLex)
		return
	}
	minArg, maxArg := args[2], args[3]
	if rev && kind != rangeRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	var (
		start, end int64
		lo, hi     router.Bound
		lex        lexRange
		ok         bool
	)
	switch kind {
	case rangeRank:
		if start, ok = geo.ParseInt(minArg); !ok {
			c.W.Error(errNotInt)
			return
		}
		if end, ok = geo.ParseInt(maxArg); !ok {
			c.W.Error(errNotInt)
			return
		}
	case rangeScore:
		if lo, hi, ok = parseScoreRange(minArg, maxArg); !ok {
			c.W.Error(errRangeFloat)
			return
		}
	case rangeLex:
		if lex, ok = parseLexRange(minArg, maxArg); !ok {
			c.W.Error(errRangeLex)
			return
		}
	}
	if e.isString(c, args[1]) {
		c.W.Error(errWrongType)
		return
	}
	k := c.key(args[1])
	var got []router.Member
	switch kind {
	case rangeRank:
		n := int64(e.Router().Card(k))
		if start < 0 {
			start += n
		}
		if end < 0 {
			end += n
		}
		start = max(start, 0)
		if start > end || start >= n {
			break
		}
		end = min(end, n-1)
		got = e.Router().Range(k, router.Bound{Score: math.Inf(-1)}, router.Bound{Score: math.Inf(1)}, rev, int(start), int(end-start+1))
	case rangeScore:
		if offset < 0 {
			break // Redis skips "offset" members one by one: all of them
		}
		got = e.Router().Range(k, lo, hi, rev, clampInt(offset), clampInt(limit))
	case rangeLex:
		all := e.Router().Range(k, router.Bound{Score: math.Inf(-1)}, router.Bound{Score: math.Inf(1)}, false, 0, -1)
		got = lex.walk(all, rev, offset, limit)
	}
	writeMembers(c, got, withScores)
}

// clampInt turns a parsed count into the router's int, keeping negatives
// (meaning "all") negative.
func clampInt(n int64) int {
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	if n < 0 {
		return -1
	}
	return int(n)
}

// writeMembers writes a range reply: members, or member-score pairs (flat
// in RESP2, one array per pair in RESP3).
func writeMembers(c *Client, ms []router.Member, withScores bool) {
	switch {
	case !withScores:
		c.W.Array(len(ms))
	case c.W.Proto >= 3:
		c.W.Array(len(ms))
	default:
		c.W.Array(2 * len(ms))
	}
	for _, m := range ms {
		if withScores && c.W.Proto >= 3 {
			c.W.Array(2)
		}
		c.W.BulkString(m.Name)
		if withScores {
			writeScore(c, m.Score)
		}
	}
}

// parseScoreRange reads a BYSCORE min and max as Redis's zslParseRange:
// "(" makes a bound exclusive.
func parseScoreRange(minArg, maxArg []byte) (lo, hi router.Bound, ok bool) {
	if lo, ok = parseScoreBound(minArg); !ok {
		return
	}
	hi, ok = parseScoreBound(maxArg)
	return
}

func parseScoreBound(b []byte) (router.Bound, bool) {
	b = cstr(b)
	var bd router.Bound
	if len(b) > 0 && b[0] == '(' {
		bd.Exclusive = true
		b = b[1:]
	}
	x, ok := strtodWhole(b)
	bd.Score = x
	return bd, ok
}

// strtodWhole reads a number as C strtod does when the caller then only
// insists that nothing follows it and that it is not NaN: leading white
// space is skipped, overflow gives ±inf, underflow 0, and an empty input
// is 0 (strtod converts nothing and stops at the terminating NUL).
func strtodWhole(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	t := b
	for len(t) > 0 && (t[0] == ' ' || (t[0] >= '\t' && t[0] <= '\r')) {
		t = t[1:]
	}
	if x, ok := geo.ParseFloat(t); ok {
		return x, true
	}
	// What ParseFloat refuses beyond bad syntax and NaN is a number out of
	// range, which strtod clamps.
	return parseOutOfRange(t)
}

// parseOutOfRange converts a syntactically complete C floating-point
// literal whose value overflows or underflows a double.
func parseOutOfRange(t []byte) (float64, bool) {
	s := string(t)
	body := s
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	hex := len(body) > 1 && body[0] == '0' && (body[1]|0x20) == 'x'
	digit := func(ch byte) bool { return ch >= '0' && ch <= '9' }
	if hex {
		body = body[2:]
		digit = func(ch byte) bool {
			return (ch >= '0' && ch <= '9') || (ch|0x20 >= 'a' && ch|0x20 <= 'f')
		}
	}
	i, n := 0, 0
	for i < len(body) && digit(body[i]) {
		i, n = i+1, n+1
	}
	if i < len(body) && body[i] == '.' {
		i++
		for i < len(body) && digit(body[i]) {
			i, n = i+1, n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	exp := byte('e')
	if hex {
		exp = 'p'
	}
	hasExp := false
	if i < len(body) && body[i]|0x20 == exp {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		m := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i, m = i+1, m+1
		}
		if m == 0 {
			return 0, false
		}
		hasExp = true
	}
	if i != len(body) {
		return 0, false
	}
	if hex && !hasExp {
		s += "p0" // Go insists on a binary exponent
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// lexRange is a BYLEX range: each end a string, exclusive or not, or one
// of the open ends "-" (below everything) and "+" (above everything).
type lexRange struct {
	min, max     string
	minEx, maxEx bool
	minInf       int // -1: "-", +1: "+", 0: a string
	maxInf       int
}

func parseLexRange(minArg, maxArg []byte) (lexRange, bool) {
	var r lexRange
	var ok bool
	if r.min, r.minEx, r.minInf, ok = parseLexItem(minArg); !ok {
		return r, false
	}
	r.max, r.maxEx, r.maxInf, ok = parseLexItem(maxArg)
	return r, ok
}

// parseLexItem reads one end as zslParseLexRangeItem: "+", "-", or a
// string after "(" (exclusive) or "[" (inclusive).
func parseLexItem(b []byte) (s string, ex bool, inf int, ok bool) {
	if len(b) == 0 {
		return "", false, 0, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return "", false, 0, false
		}
		if b[0] == '+' {
			return "", true, 1, true
		}
		return "", true, -1, true
	case '(':
		return string(b[1:]), true, 0, true
	case '[':
		return string(b[1:]), false, 0, true
	}
	return "", false, 0, false
}

// cmpLex compares a member with a range end as sdscmplex does.
func cmpLex(a string, b string, bInf int) int {
	switch {
	case bInf < 0:
		return 1
	case bInf > 0:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *lexRange) gteMin(m string) bool {
	c := cmpLex(m, r.min, r.minInf)
	return c > 0 || (!r.minEx && c == 0)
}

func (r *lexRange) lteMax(m string) bool {
	c := cmpLex(m, r.max, r.maxInf)
	return c < 0 || (!r.maxEx && c == 0)
}

// empty reports the ranges Redis answers empty without looking.
func (r *lexRange) empty() bool {
	var c int
	switch {
	case r.minInf == r.maxInf && r.minInf != 0:
		c = 0
	case r.minInf < 0 || r.maxInf > 0:
		c = -1
	case r.minInf > 0 || r.maxInf < 0:
		c = 1
	case r.min < r.max:
		c = -1
	case r.min > r.max:
		c = 1
	}
	return c > 0 || (c == 0 && (r.minEx || r.maxEx))
}

// walk selects members of a whole sorted set (in order) as Redis does for
// a set small enough to be a listpack: start at the first member past min
// (the last below max, reversed), stop at the first one out of range. On
// a set whose members share one score, which is what BYLEX is for, this
// is exactly the lexicographic range.
func (r *lexRange) walk(all []router.Member, rev bool, offset, limit int64) []router.Member {
	if len(all) == 0 || r.empty() ||
		!r.gteMin(all[len(all)-1].Name) || !r.lteMax(all[0].Name) {
		return nil
	}
	if offset > 0 && offset >= int64(len(all)) {
		return nil
	}
	pos := -1
	if rev {
		for i := len(all) - 1; i >= 0; i-- {
			if r.lteMax(all[i].Name) {
				if r.gteMin(all[i].Name) {
					pos = i
				}
				break
			}
		}
	} else {
		for i := range all {
			if r.gteMin(all[i].Name) {
				if r.lteMax(all[i].Name) {
					pos = i
				}
				break
			}
		}
	}
	if pos < 0 {
		return nil
	}
	step := 1
	if rev {
		step = -1
	}
	inside := func(i int) bool { return i >= 0 && i < len(all) }
	for ; inside(pos) && offset != 0; offset-- {
		pos += step
	}
	var out []router.Member
	for ; inside(pos) && limit != 0; limit-- {
		m := all[pos]
		if (rev && !r.gteMin(m.Name)) || (!rev && !r.lteMax(m.Name)) {
			break
		}
		out = append(out, m)
		pos += step
	}
	return out
}
