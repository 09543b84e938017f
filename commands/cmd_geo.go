package commands

import (
	"slices"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

func init() {
	register(
		&command{name: "geoadd", arity: -5, flags: []string{"write", "denyoom"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: geoadd},
		&command{name: "geopos", arity: -2, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: geopos},
		&command{name: "geodist", arity: -4, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: geodist},
		&command{name: "geohash", arity: -2, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: geohash},
	)
}

// parseLonLat reads a longitude and a latitude as GEOADD and FROMLONLAT
// do: both numbers first, then the range.
func parseLonLat(lonArg, latArg []byte) (lon, lat float64, err string) {
	lon, ok := geo.ParseFloat(lonArg)
	if !ok {
		return 0, 0, errNotFloat
	}
	if lat, ok = geo.ParseFloat(latArg); !ok {
		return 0, 0, errNotFloat
	}
	if !geo.Valid(lon, lat) {
		return 0, 0, geo.InvalidPairError(lon, lat)
	}
	return lon, lat, ""
}

// geoadd: GEOADD key [NX|XX] [CH] lon lat member [lon lat member ...]
func geoadd(e *Engine, c *Client, args [][]byte) {
	var f router.AddFlags
	ch := false
	i := 2
	for ; i < len(args); i++ {
		switch {
		case eq(args[i], "nx"):
			f.NX = true
		case eq(args[i], "xx"):
			f.XX = true
		case eq(args[i], "ch"):
			ch = true
		default:
			goto triples
		}
	}
triples:
	rest := args[i:]
	if len(rest)%3 != 0 || len(rest) == 0 || (f.NX && f.XX) {
		c.W.Error(errSyntax)
		return
	}
	// Every triple is checked before anything is written. A ping moves
	// one driver: its score stays on the stack.
	var small [4]float64
	scores := small[:0]
	if n := len(rest) / 3; n > len(small) {
		scores = make([]float64, n)
	} else {
		scores = small[:n]
	}
	for j := range scores {
		lon, lat, err := parseLonLat(rest[3*j], rest[3*j+1])
		if err != "" {
			c.W.Error(err)
			return
		}
		scores[j] = geo.Encode(lon, lat)
	}
	if !e.geoOnly(c, args[1]) {
		return
	}
	e.addAll(c, c.key(args[1]), func(j int) []byte { return rest[3*j+2] }, scores, f, ch)
}

// addAll writes members with their scores, in order, as ZADD does, and
// replies how many were added (with CH: added or changed). Many members
// go to the router together: in cluster mode it looks up and stores them
// in batches, one message per node each; on one node it writes them one
// after the other in their shard's queue (router/bulk.go).
func (e *Engine) addAll(c *Client, k shard.Key, member func(j int) []byte, scores []float64, f router.AddFlags, ch bool) {
	var added, changed int
	var err error
	if len(scores) == 1 && !e.Router().Clustered() {
		// A ping: no slice of names.
		var a, moved bool
		a, moved, err = e.Router().TryAdd(k, string(member(0)), scores[0], f)
		added, changed = int(boolInt(a)), int(boolInt(moved))
	} else {
		members := make([]string, len(scores))
		for j := range members {
			members[j] = string(member(j))
		}
		// A copy: scores itself may be a ping's array on the caller's
		// stack, which the router's batches would move to the heap.
		added, changed, err = e.Router().TryAddMany(k, members, slices.Clone(scores), f)
	}
	if err != nil {
		// Cluster mode: the shard's node is down or not answering.
		c.W.Error("TRYAGAIN " + err.Error())
		return
	}
	n := added
	if ch {
		n += changed
	}
	c.changed(added + changed) // the save schedule counts elements, as Redis's dirty counter
	c.W.Int(int64(n))
}

// geopos: GEOPOS key [member ...]
func geopos(e *Engine, c *Client, args [][]byte) {
	e.eachMember(c, args, c.W.NullArray, func(score float64) {
		lon, lat := geo.Decode(score)
		c.W.Array(2)
		writeCoord(c, lon)
		writeCoord(c, lat)
	})
}

// geohash: GEOHASH key [member ...]
func geohash(e *Engine, c *Client, args [][]byte) {
	e.eachMember(c, args, c.W.Null, func(score float64) {
		c.W.BulkString(geo.Hash(score))
	})
}

// eachMember answers a "key member..." command with one reply per member:
// found writes a present member's, missing the null for an absent one.
func (e *Engine) eachMember(c *Client, args [][]byte, missing func(), found func(score float64)) {
	if !e.geoOnly(c, args[1]) {
		return
	}
	e.eachScore(c, c.key(args[1]), args[2:], missing, found)
}

// eachScore writes an array of one reply per member. The scores are all
// read first (Router.TryScores: one read of each shard, or in cluster mode
// of each node, for all the members), so that a member that could not be
// looked up answers -TRYAGAIN for the command instead of a nil in the
// array.
func (e *Engine) eachScore(c *Client, k shard.Key, members [][]byte, missing func(), found func(score float64)) {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = string(m)
	}
	scores, oks, err := e.Router().TryScores(k, names)
	if tryAgain(c, err) {
		return
	}
	c.W.Array(len(members))
	for i := range members {
		if oks[i] {
			found(scores[i])
		} else {
			missing()
		}
	}
}

// geodist: GEODIST key member1 member2 [unit]
func geodist(e *Engine, c *Client, args [][]byte) {
	unit := 1.0
	if len(args) > 5 {
		c.W.Error(errSyntax)
		return
	}
	if len(args) == 5 {
		var ok bool
		if unit, ok = geo.ParseUnit(args[4]); !ok {
			c.W.Error(errUnit)
			return
		}
	}
	if !e.geoOnly(c, args[1]) {
		return
	}
	k := c.key(args[1])
	// Both at once: in cluster mode one look-up per node.
	s, ok, err := e.Router().TryScores(k, []string{string(args[2]), string(args[3])})
	if tryAgain(c, err) {
		return
	}
	if !ok[0] || !ok[1] {
		c.W.Null()
		return
	}
	lon1, lat1 := geo.Decode(s[0])
	lon2, lat2 := geo.Decode(s[1])
	writeDist(c, geo.Distance(lon1, lat1, lon2, lat2)/unit)
}

// writeCoord writes a coordinate: a bulk string in RESP2, a double in RESP3,
// with the same 17-decimal text.
func writeCoord(c *Client, x float64) {
	var buf [40]byte
	c.W.DoubleText(geo.AppendCoord(buf[:0], x))
}

// writeDist writes a distance: always a bulk string with 4 decimals.
func writeDist(c *Client, d float64) {
	var buf [40]byte
	c.W.Bulk(geo.AppendDist(buf[:0], d))
}

// writeScore writes a sorted-set score as Redis prints doubles.
func writeScore(c *Client, x float64) {
	var buf [40]byte
	c.W.DoubleText(geo.AppendScore(buf[:0], x))
}

// isString reports whether the key holds a string, so sorted-set commands
// answer WRONGTYPE.
func (e *Engine) isString(c *Client, key []byte) bool {
	_, ok := e.dbs[c.db].strings[string(key)]
	return ok
}

// eq compares a word with a lower-case keyword, ignoring case.
func eq(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		ch := b[i]
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != lower[i] {
			return false
		}
	}
	return true
}
