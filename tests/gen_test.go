package tests

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// cmdGen produces a reproducible stream of commands from a seed. It never
// looks at replies, so the same seed always gives the same stream, and
// about 80% of the commands are valid.
type cmdGen struct {
	v valueGen
	// pBad is the probability that a builder plants one defect.
	pBad float64
	// db is the database the stream has selected (SELECT with a valid
	// index always succeeds), so the stream can drift back to 0.
	db string
}

func newCmdGen(seed uint64) *cmdGen {
	return &cmdGen{v: valueGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, pBad: 0.12}
}

// Keys: two heavy geo keys get most writes so they grow into the hundreds
// of members (and past the listpack limit).
var (
	heavyKeys = []string{"geo:a", "geo:b"}
	lightKeys = []string{"geo:c", "geo:\x00bin\r\n", "Sicily"}
	dstKeys   = []string{"dst:1", "dst:2"}
	strKeys   = []string{"str:1"}
	noKeys    = []string{"nokey"}
)

func (g *cmdGen) geoKey() string {
	switch n := g.v.r.IntN(100); {
	case n < 75:
		return g.v.pick(heavyKeys)
	case n < 90:
		return g.v.pick(lightKeys)
	case n < 94:
		return g.v.pick(dstKeys)
	case n < 97:
		return g.v.pick(noKeys)
	default:
		return g.v.pick(strKeys) // WRONGTYPE
	}
}

func (g *cmdGen) anyKey() string {
	switch n := g.v.r.IntN(100); {
	case n < 40:
		return g.v.pick(heavyKeys)
	case n < 60:
		return g.v.pick(lightKeys)
	case n < 80:
		return g.v.pick(dstKeys)
	case n < 90:
		return g.v.pick(strKeys)
	default:
		return g.v.pick(noKeys)
	}
}

// builders and their weights (per mille-ish; only ratios matter).
type builder struct {
	name   string
	weight int
	build  func(g *cmdGen, bad bool) []string
}

var builders = []builder{
	{"GEOADD", 180, (*cmdGen).geoadd},
	{"GEOSEARCH", 120, (*cmdGen).geosearch},
	{"GEOSEARCHSTORE", 35, (*cmdGen).geosearchstore},
	{"GEORADIUS", 55, (*cmdGen).georadius},
	{"GEORADIUSBYMEMBER", 50, (*cmdGen).georadiusbymember},
	{"GEOPOS", 55, (*cmdGen).geopos},
	{"GEODIST", 55, (*cmdGen).geodist},
	{"GEOHASH", 35, (*cmdGen).geohash},
	{"ZADD", 55, (*cmdGen).zadd},
	{"ZREM", 25, (*cmdGen).zrem},
	{"ZSCORE", 25, (*cmdGen).zscore},
	{"ZMSCORE", 20, (*cmdGen).zmscore},
	{"ZCARD", 20, (*cmdGen).zcard},
	{"ZRANGE", 50, (*cmdGen).zrange},
	{"ZRANK", 15, (*cmdGen).zrank},
	{"DEL", 4, (*cmdGen).del},
	{"UNLINK", 3, (*cmdGen).unlink},
	{"EXISTS", 12, (*cmdGen).exists},
	{"TYPE", 12, (*cmdGen).typ},
	{"RENAME", 5, (*cmdGen).rename},
	{"EXPIRE", 25, (*cmdGen).expire},
	{"KEYS", 6, (*cmdGen).keys},
	{"DBSIZE", 6, (*cmdGen).dbsize},
	{"SELECT", 10, (*cmdGen).selectDB},
	{"SET", 8, (*cmdGen).set},
	{"GET", 8, (*cmdGen).get},
	{"PING", 6, (*cmdGen).ping},
	{"ECHO", 5, (*cmdGen).echo},
	{"UNKNOWN", 6, (*cmdGen).unknown},
}

var totalWeight = func() int {
	n := 0
	for _, b := range builders {
		n += b.weight
	}
	return n
}()

// next returns the next command of the stream.
func (g *cmdGen) next() []string {
	if g.db != "0" && g.db != "" && g.v.chance(0.05) {
		g.db = "0"
		return []string{"SELECT", "0"}
	}
	n := g.v.r.IntN(totalWeight)
	var b builder
	for _, b = range builders {
		if n < b.weight {
			break
		}
		n -= b.weight
	}
	args := b.build(g, g.v.chance(g.pBad))
	if g.v.chance(0.015) && len(args) > 1 {
		args = args[:1+g.v.r.IntN(len(args)-1)] // usually an arity error
	}
	if g.v.chance(0.15) {
		args[0] = g.v.randCase(args[0])
	}
	return args
}

// searchOpts returns the WITH*/ASC/DESC/COUNT option groups of a search.
// store reports whether WITH* would be an error (only chosen when bad).
func (g *cmdGen) searchOpts(bad, store bool) [][]string {
	v := &g.v
	var opts [][]string
	if !store || bad && v.chance(0.3) {
		for _, w := range []string{"WITHCOORD", "WITHDIST", "WITHHASH"} {
			if v.chance(0.35) {
				opts = append(opts, []string{v.randCase(w)})
			}
		}
	}
	switch n := v.r.IntN(10); {
	case n < 3:
		opts = append(opts, []string{v.randCase("ASC")})
	case n < 5:
		opts = append(opts, []string{v.randCase("DESC")})
	case n < 6:
		opts = append(opts, []string{"ASC"}, []string{"DESC"}) // last wins
	}
	if v.chance(0.45) {
		c := []string{v.randCase("COUNT"), v.count()}
		if bad && v.chance(0.3) {
			c[1] = v.badCount()
		}
		opts = append(opts, c)
		if v.chance(0.35) {
			opts = append(opts, []string{v.randCase("ANY")})
		}
	} else if bad && v.chance(0.2) {
		opts = append(opts, []string{"ANY"}) // ANY without COUNT
	}
	if bad && v.chance(0.15) {
		// Words Redis 7.0 rejects as a syntax error. (Not BYPOLYGON: it is
		// geoshard's Valkey extension, with its own errors and tests.)
		opts = append(opts, []string{v.pick([]string{"COUNT", "WITHFOO", "STORE", "BYCIRCLE", "ASCENDING"})})
	}
	return opts
}

func flatten(head []string, groups [][]string) []string {
	out := head
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func (g *cmdGen) geoadd(bad bool) []string {
	v := &g.v
	args := []string{"GEOADD", g.geoKey()}
	nx := v.chance(0.1)
	xx := !nx && v.chance(0.1)
	if nx {
		args = append(args, v.randCase("NX"))
	}
	if xx {
		args = append(args, v.randCase("XX"))
	}
	if v.chance(0.15) {
		args = append(args, v.randCase("CH"))
	}
	n := 1
	switch r := v.r.IntN(10); {
	case r < 3:
		n = 2 + v.r.IntN(4)
	case r < 4:
		n = 10 + v.r.IntN(50)
	}
	badAt := -1
	if bad {
		badAt = v.r.IntN(n)
	}
	defect := v.r.IntN(5)
	for i := 0; i < n; i++ {
		lon, lat := v.lonLat(0)
		if i == badAt && defect < 3 {
			lon, lat = v.lonLat(1)
		}
		args = append(args, lon, lat, v.newMember())
	}
	if bad {
		switch defect {
		case 3:
			args = append(args[:2], append([]string{v.pick([]string{"NX", "XX", "GT", "LT", "INCR", "CH"})}, args[2:]...)...)
			if v.chance(0.5) {
				args = append(args[:2], append([]string{"XX", "NX"}, args[2:]...)...)
			}
		case 4:
			args = args[:len(args)-1] // not a multiple of 3
		}
	}
	return args
}

// fromGroup returns FROMMEMBER m or FROMLONLAT lon lat.
func (g *cmdGen) fromGroup(bad bool) []string {
	v := &g.v
	if v.chance(0.4) {
		return []string{v.randCase("FROMMEMBER"), v.addedMember()}
	}
	lon, lat := v.centre(b2f(bad, 0.5))
	return []string{v.randCase("FROMLONLAT"), lon, lat}
}

// byGroup returns BYRADIUS r unit or BYBOX w h unit.
func (g *cmdGen) byGroup(bad bool) []string {
	v := &g.v
	unit := v.unit()
	if bad && v.chance(0.3) {
		unit = v.pick(badUnits)
	}
	if v.chance(0.6) {
		r := v.distance(unit)
		if bad && v.chance(0.4) {
			r = v.badDistance()
		}
		return []string{v.randCase("BYRADIUS"), r, unit}
	}
	w, h := v.distance(unit), v.distance(unit)
	if bad && v.chance(0.4) {
		if v.chance(0.5) {
			w = v.badDistance()
		} else {
			h = v.badDistance()
		}
	}
	return []string{v.randCase("BYBOX"), w, h, unit}
}

func (g *cmdGen) geosearchGroups(bad, store bool) [][]string {
	v := &g.v
	groups := g.searchOpts(bad, store)
	if !bad || v.chance(0.6) {
		groups = append(groups, g.fromGroup(bad))
	}
	if !bad || v.chance(0.6) {
		groups = append(groups, g.byGroup(bad))
	}
	if bad && v.chance(0.3) {
		switch v.r.IntN(4) {
		case 0:
			groups = append(groups, g.fromGroup(false)) // may be both FROMs (error) or a repeat (fine)
		case 1:
			groups = append(groups, g.byGroup(false))
		case 2:
			groups = append(groups, []string{"STORE", v.pick(dstKeys)})
		default:
			groups = append(groups, []string{"STOREDIST"})
		}
	}
	v.r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	return groups
}

func (g *cmdGen) geosearch(bad bool) []string {
	return flatten([]string{"GEOSEARCH", g.geoKey()}, g.geosearchGroups(bad, false))
}

func (g *cmdGen) geosearchstore(bad bool) []string {
	v := &g.v
	groups := g.geosearchGroups(bad, true)
	if v.chance(0.4) {
		groups = append(groups, []string{v.randCase("STOREDIST")})
		v.r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	}
	dst := v.pick(dstKeys)
	if v.chance(0.1) {
		dst = v.pick(append(strKeys, lightKeys...)) // overwritten whatever its type
	}
	return flatten([]string{"GEOSEARCHSTORE", dst, g.geoKey()}, groups)
}

// radiusTail returns radius unit [opts] [STORE|STOREDIST k] of GEORADIUS*.
func (g *cmdGen) radiusTail(bad, ro bool) []string {
	v := &g.v
	unit := v.unit()
	r := v.distance(unit)
	if bad && v.chance(0.3) {
		r = v.badDistance()
	} else if bad && v.chance(0.3) {
		unit = v.pick(badUnits)
	}
	store := !ro && v.chance(0.25)
	groups := g.searchOpts(bad, store)
	if store || bad && v.chance(0.2) {
		kind := v.pick([]string{"STORE", "STOREDIST"})
		groups = append(groups, []string{v.randCase(kind), v.pick(dstKeys)})
	}
	v.r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	return flatten([]string{r, unit}, groups)
}

func (g *cmdGen) georadius(bad bool) []string {
	v := &g.v
	ro := v.chance(0.3)
	name := "GEORADIUS"
	if ro {
		name = "GEORADIUS_RO"
	}
	lon, lat := v.centre(b2f(bad, 0.3))
	return append([]string{name, g.geoKey(), lon, lat}, g.radiusTail(bad, ro)...)
}

func (g *cmdGen) georadiusbymember(bad bool) []string {
	v := &g.v
	ro := v.chance(0.3)
	name := "GEORADIUSBYMEMBER"
	if ro {
		name = "GEORADIUSBYMEMBER_RO"
	}
	return append([]string{name, g.geoKey(), v.addedMember()}, g.radiusTail(bad, ro)...)
}

func (g *cmdGen) geopos(bad bool) []string {
	return append([]string{"GEOPOS", g.geoKey()}, g.v.members(0, 5)...)
}

func (g *cmdGen) geohash(bad bool) []string {
	return append([]string{"GEOHASH", g.geoKey()}, g.v.members(0, 5)...)
}

func (g *cmdGen) geodist(bad bool) []string {
	v := &g.v
	args := []string{"GEODIST", g.geoKey(), v.addedMember(), v.addedMember()}
	if v.chance(0.6) {
		args = append(args, v.unit())
	}
	if bad {
		if v.chance(0.6) {
			args = append(args[:4], v.pick(badUnits))
		} else {
			args = append(args, "km", "extra")
		}
	}
	return args
}

func (g *cmdGen) zadd(bad bool) []string {
	v := &g.v
	args := []string{"ZADD", g.geoKey()}
	if v.chance(0.1) {
		args = append(args, v.randCase(v.pick([]string{"NX", "XX"})))
	}
	if v.chance(0.1) {
		args = append(args, v.randCase(v.pick([]string{"GT", "LT"})))
	}
	if v.chance(0.15) {
		args = append(args, v.randCase("CH"))
	}
	n := 1 + v.r.IntN(3)
	for i := 0; i < n; i++ {
		args = append(args, v.score(), v.member())
	}
	if bad {
		switch v.r.IntN(4) {
		case 0:
			args[len(args)-2] = v.pick(badScores)
		case 1:
			args = args[:len(args)-1]
		case 2:
			args = append(args[:2], append([]string{"NX", "XX"}, args[2:]...)...)
		default:
			args = append(args[:2], append([]string{v.pick([]string{"GT", "LT"}), v.pick([]string{"NX", "LT", "GT"})}, args[2:]...)...)
		}
	}
	return args
}

func (g *cmdGen) zrem(bad bool) []string {
	return append([]string{"ZREM", g.geoKey()}, g.v.members(1, 3)...)
}

func (g *cmdGen) zscore(bad bool) []string {
	return []string{"ZSCORE", g.geoKey(), g.v.member()}
}

func (g *cmdGen) zmscore(bad bool) []string {
	return append([]string{"ZMSCORE", g.geoKey()}, g.v.members(1, 4)...)
}

func (g *cmdGen) zcard(bad bool) []string {
	return []string{"ZCARD", g.geoKey()}
}

func (g *cmdGen) zrank(bad bool) []string {
	args := []string{"ZRANK", g.geoKey(), g.v.member()}
	if bad {
		args = append(args, "WITHSCORE") // 7.2 syntax: an arity error on 7.0
	}
	return args
}

func (g *cmdGen) scoreBound() string {
	v := &g.v
	b := v.pick([]string{"-inf", "+inf", "inf", "0", "1", "-1", "3479099956230698",
		"3479447370796909", "10133099161583616", "1e20"})
	if v.chance(0.5) {
		b = strconv.FormatUint(v.r.Uint64N(1<<52), 10)
	}
	if v.chance(0.3) && !strings.HasSuffix(b, "inf") {
		b = "(" + b
	}
	return b
}

func (g *cmdGen) zrange(bad bool) []string {
	v := &g.v
	args := []string{"ZRANGE", g.geoKey()}
	byScore := v.chance(0.4)
	if byScore {
		args = append(args, g.scoreBound(), g.scoreBound(), v.randCase("BYSCORE"))
	} else {
		idx := func() string { return strconv.Itoa(v.r.IntN(40) - 20) }
		lo, hi := idx(), idx()
		if v.chance(0.4) {
			lo, hi = "0", "-1"
		}
		args = append(args, lo, hi)
	}
	if v.chance(0.3) {
		args = append(args, v.randCase("REV"))
	}
	if byScore && v.chance(0.4) {
		args = append(args, v.randCase("LIMIT"), strconv.Itoa(v.r.IntN(10)), strconv.Itoa(v.r.IntN(12)-1))
	}
	if v.chance(0.5) {
		args = append(args, v.randCase("WITHSCORES"))
	}
	if bad {
		switch v.r.IntN(4) {
		case 0:
			args = append(args, "LIMIT", "0", "5") // LIMIT without BYSCORE, or a repeat
		case 1:
			args[2] = v.pick([]string{"abc", "(x", "nan", "1.5"})
		case 2:
			args = append(args, "LIMIT", "0")
		default:
			args = append(args, "BYLEX")
		}
	}
	return args
}

func (g *cmdGen) keyList(lo, hi int) []string {
	n := lo + g.v.r.IntN(hi-lo+1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.anyKey()
	}
	return out
}

func (g *cmdGen) del(bad bool) []string {
	// Mostly the small keys: deleting a heavy key throws away its growth.
	if g.v.chance(0.95) {
		return []string{"DEL", g.v.pick(append(append([]string{}, dstKeys...), lightKeys...))}
	}
	return append([]string{"DEL"}, g.keyList(1, 3)...)
}

func (g *cmdGen) unlink(bad bool) []string {
	return []string{"UNLINK", g.v.pick(append(append([]string{}, dstKeys...), noKeys...))}
}

func (g *cmdGen) exists(bad bool) []string {
	return append([]string{"EXISTS"}, g.keyList(1, 4)...)
}

func (g *cmdGen) typ(bad bool) []string {
	return []string{"TYPE", g.anyKey()}
}

func (g *cmdGen) rename(bad bool) []string {
	v := &g.v
	src := v.pick(append(append(append([]string{}, dstKeys...), lightKeys...), noKeys...))
	dst := v.pick(append(append([]string{}, dstKeys...), lightKeys...))
	if v.chance(0.05) {
		src, dst = v.pick(heavyKeys), v.pick(heavyKeys) // may be a self-rename
	}
	return []string{"RENAME", src, dst}
}

// expire covers EXPIRE/PEXPIRE/TTL/PTTL/PERSIST with TTLs far beyond the
// test's run time, so no key expires on one server and not on another.
func (g *cmdGen) expire(bad bool) []string {
	v := &g.v
	key := g.anyKey()
	switch v.r.IntN(6) {
	case 0:
		args := []string{"EXPIRE", key, strconv.Itoa(100000 + v.r.IntN(100000))}
		if v.chance(0.3) {
			args = append(args, v.randCase(v.pick([]string{"NX", "XX", "GT", "LT"})))
		}
		if bad {
			args[2] = v.pick([]string{"abc", "1.5", "", "99999999999999999", "9223372036854775807"})
		} else if v.chance(0.05) {
			args[2] = v.pick([]string{"0", "-1"}) // deletes the key at once
		}
		return args
	case 1:
		args := []string{"PEXPIRE", key, strconv.Itoa(100000000 + v.r.IntN(100000000))}
		if bad {
			args[2] = v.pick([]string{"abc", "9223372036854775807", "-9223372036854775808"})
		}
		return args
	case 2:
		return []string{"TTL", key}
	case 3:
		return []string{"PTTL", key}
	default:
		return []string{"PERSIST", key}
	}
}

func (g *cmdGen) keys(bad bool) []string {
	return []string{"KEYS", g.v.pick([]string{"*", "geo:*", "dst:?", "*1*", "[gs]*", "nokey", "\\*", "g*:[a-b]"})}
}

func (g *cmdGen) dbsize(bad bool) []string { return []string{"DBSIZE"} }

func (g *cmdGen) selectDB(bad bool) []string {
	v := &g.v
	// Mostly back to 0: the heavy keys should grow in one database.
	db := v.pick([]string{"0", "0", "1", "2", "15"})
	if bad {
		return []string{"SELECT", v.pick([]string{"16", "-1", "abc", "", "0x1", "1.0"})}
	}
	g.db = db
	return []string{"SELECT", db}
}

func (g *cmdGen) set(bad bool) []string {
	v := &g.v
	key := v.pick(strKeys)
	if v.chance(0.06) {
		key = v.pick(append(append([]string{}, dstKeys...), lightKeys...)) // a zset becomes a string
	}
	return []string{"SET", key, v.pick([]string{"v", "", "1", "a\r\nb"})}
}

func (g *cmdGen) get(bad bool) []string {
	return []string{"GET", g.anyKey()}
}

func (g *cmdGen) ping(bad bool) []string {
	if g.v.chance(0.4) {
		return []string{"PING", g.v.member()}
	}
	return []string{"PING"}
}

func (g *cmdGen) echo(bad bool) []string {
	return []string{"ECHO", g.v.member()}
}

func (g *cmdGen) unknown(bad bool) []string {
	v := &g.v
	name := v.pick([]string{"GEOFOO", "geoadd2", "FOO", "GEO", "GEOSEARCHSTORE2", "ZADDX", "\x00", "GEO ADD"})
	args := []string{name}
	for i := v.r.IntN(4); i > 0; i-- {
		args = append(args, v.member())
	}
	return args
}

func b2f(b bool, p float64) float64 {
	if b {
		return p
	}
	return 0
}
