package commands

import (
	"math"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

const (
	errLimitByRank = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errScoresByLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
)

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

// zrangeSpec is a parsed ZRANGE-family command: what to read and how to
// reply.
type zrangeSpec struct {
	kind          rangeKind
	rev           bool
	withScores    bool
	offset, limit int64
	start, end    int64 // rangeRank
	lo, hi        router.Bound
	lex           lexRange
}

// zrangeGeneric runs ZRANGE and its older forms (ZREVRANGE,
// Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX) as Redis's zrangeGenericCommand:
// options, their conflicts, the range, then the key.
func zrangeGeneric(e *Engine, c *Client, args [][]byte, kind rangeKind, dir rangeDir) {
	sp := zrangeSpec{kind: kind, limit: -1}
	if msg := sp.parseOptions(args, dir); msg != "" {
		c.W.Error(msg)
		return
	}
	if msg := sp.parseRange(args[2], args[3]); msg != "" {
		c.W.Error(msg)
		return
	}
	if !e.geoOnly(c, args[1]) {
		return
	}
	ms, err := sp.fetch(e, c.key(args[1]))
	if tryAgain(c, err) {
		return
	}
	writeMembers(c, ms, sp.withScores)
}

// parseOptions reads the words after min and max, settles the kind and
// direction, and checks the options' conflicts; it returns the error to
// reply, or "".
func (sp *zrangeSpec) parseOptions(args [][]byte, dir rangeDir) string {
	for j := 4; j < len(args); j++ {
		left := len(args) - j - 1
		switch a := args[j]; {
		case optIs(a, "withscores"):
			sp.withScores = true
		case optIs(a, "limit") && left >= 2:
			var ok bool
			if sp.offset, ok = geo.ParseInt(args[j+1]); !ok {
				return errNotInt
			}
			if sp.limit, ok = geo.ParseInt(args[j+2]); !ok {
				return errNotInt
			}
			j += 2
		case dir == dirAuto && optIs(a, "rev"):
			dir = dirReverse
		case sp.kind == rangeAuto && optIs(a, "bylex"):
			sp.kind = rangeLex
		case sp.kind == rangeAuto && optIs(a, "byscore"):
			sp.kind = rangeScore
		default:
			return errSyntax
		}
	}
	if sp.kind == rangeAuto {
		sp.kind = rangeRank
	}
	sp.rev = dir == dirReverse
	if sp.limit != -1 && sp.kind == rangeRank {
		return errLimitByRank
	}
	if sp.withScores && sp.kind == rangeLex {
		return errScoresByLex
	}
	return ""
}

// parseRange reads min and max by the kind; it returns the error to
// reply, or "".
func (sp *zrangeSpec) parseRange(minArg, maxArg []byte) string {
	if sp.rev && sp.kind != rangeRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	var ok bool
	switch sp.kind {
	case rangeRank:
		if sp.start, ok = geo.ParseInt(minArg); !ok {
			return errNotInt
		}
		if sp.end, ok = geo.ParseInt(maxArg); !ok {
			return errNotInt
		}
	case rangeScore:
		if sp.lo, sp.hi, ok = parseScoreRange(minArg, maxArg); !ok {
			return errRangeFloat
		}
	case rangeLex:
		if sp.lex, ok = parseLexRange(minArg, maxArg); !ok {
			return errRangeLex
		}
	}
	return ""
}

// fetch reads the members the spec selects from key k.
// In cluster mode it fails when some shard could not be read.
func (sp *zrangeSpec) fetch(e *Engine, k shard.Key) ([]router.Member, error) {
	all := func() (router.Bound, router.Bound) {
		return router.Bound{Score: math.Inf(-1)}, router.Bound{Score: math.Inf(1)}
	}
	switch sp.kind {
	case rangeRank:
		card, err := e.Router().TryCard(k)
		if err != nil {
			return nil, err
		}
		n := int64(card)
		start, end := sp.start, sp.end
		if start < 0 {
			start += n
		}
		if end < 0 {
			end += n
		}
		start = max(start, 0)
		if start > end || start >= n {
			return nil, nil
		}
		end = min(end, n-1)
		lo, hi := all()
		return e.Router().TryRange(k, lo, hi, sp.rev, int(start), int(end-start+1))
	case rangeScore:
		if sp.offset < 0 {
			return nil, nil // Redis skips "offset" members one by one: all of them
		}
		return e.Router().TryRange(k, sp.lo, sp.hi, sp.rev, clampInt(sp.offset), clampInt(sp.limit))
	case rangeLex:
		lo, hi := all()
		members, err := e.Router().TryRange(k, lo, hi, false, 0, -1)
		return sp.lex.walk(members, sp.rev, sp.offset, sp.limit), err
	}
	return nil, nil
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
