package tests

import (
	"strconv"
)

// clusterGen is the command stream of the cluster differential: the
// single-node generator's builders for the commands a geo key answers
// cluster-wide, plus ZINCRBY and ZCOUNT, with positions drawn around the
// borders of clusterMap's grid so members change shards (and nodes) all
// the time. Strings, TTLs and SELECT are left out: they are per node in
// cluster mode (docs/CLUSTER.md Limits), so a stream spread over nodes
// would differ from Redis by design, not by defect.
type clusterGen struct {
	*cmdGen
}

func newClusterGen(seed uint64) *clusterGen {
	g := newCmdGen(seed)
	g.pBad = 0.08
	return &clusterGen{g}
}

var clusterBuilders = []builder{
	{"GEOADD", 90, (*cmdGen).geoadd},
	{"GEOADD-border", 150, func(g *cmdGen, bad bool) []string { return (&clusterGen{g}).borderAdd(bad) }},
	{"GEOSEARCH", 100, (*cmdGen).geosearch},
	{"GEOSEARCHSTORE", 30, (*cmdGen).geosearchstore},
	{"GEORADIUS", 45, (*cmdGen).georadius},
	{"GEORADIUSBYMEMBER", 40, (*cmdGen).georadiusbymember},
	{"GEOPOS", 45, (*cmdGen).geopos},
	{"GEODIST", 40, (*cmdGen).geodist},
	{"GEOHASH", 30, (*cmdGen).geohash},
	{"ZADD", 50, (*cmdGen).zadd},
	{"ZREM", 30, (*cmdGen).zrem},
	{"ZINCRBY", 30, func(g *cmdGen, bad bool) []string { return (&clusterGen{g}).zincrby(bad) }},
	{"ZADD-INCR", 20, func(g *cmdGen, bad bool) []string { return (&clusterGen{g}).zaddIncr(bad) }},
	{"ZSCORE", 25, (*cmdGen).zscore},
	{"ZMSCORE", 20, (*cmdGen).zmscore},
	{"ZCARD", 20, (*cmdGen).zcard},
	{"ZCOUNT", 20, func(g *cmdGen, bad bool) []string { return (&clusterGen{g}).zcount(bad) }},
	{"ZRANGE", 50, (*cmdGen).zrange},
	{"ZRANK", 15, (*cmdGen).zrank},
	{"DEL", 4, (*cmdGen).del},
	{"EXISTS", 12, (*cmdGen).exists},
	{"TYPE", 12, (*cmdGen).typ},
	{"RENAME", 5, (*cmdGen).rename},
	{"UNLINK", 3, (*cmdGen).unlink},
	{"KEYS", 6, (*cmdGen).keys},
	{"DBSIZE", 6, (*cmdGen).dbsize},
}

var clusterTotalWeight = func() int {
	n := 0
	for _, b := range clusterBuilders {
		n += b.weight
	}
	return n
}()

// next returns the next command of the stream.
func (g *clusterGen) next() []string {
	n := g.v.r.IntN(clusterTotalWeight)
	var b builder
	for _, b = range clusterBuilders {
		if n < b.weight {
			break
		}
		n -= b.weight
	}
	args := noStrings(b.build(g.cmdGen, g.v.chance(g.pBad)))
	if g.v.chance(0.015) && len(args) > 1 {
		args = args[:1+g.v.r.IntN(len(args)-1)] // usually an arity error
	}
	if g.v.chance(0.15) {
		args[0] = g.v.randCase(args[0])
	}
	return args
}

// noStrings renames the string keys the shared builders sometimes pick to
// a geo key: a string lives on the node that SET it, so TYPE through
// another node would rightly answer none. Members are never named like a
// key, so only key positions change.
func noStrings(args []string) []string {
	for i := 1; i < len(args); i++ {
		for _, k := range strKeys {
			if args[i] == k {
				args[i] = "geo:c"
			}
		}
	}
	return args
}

// clusterGrid is where clusterMap's borders are: lines of longitude and
// latitude between its 3 x 3 cells.
var (
	gridLons = []float64{4.70, 4.85, 5.00, 5.15}
	gridLats = []float64{52.25, 52.32, 52.39, 52.46}
)

// borderPoint returns a point within about 1 km of a grid line, so a
// member written again a little further lands past the 200 m margin, in
// the neighbouring shard, about as often as not.
func (g *clusterGen) borderPoint() point {
	v := &g.v
	lon := v.uniform(gridLons[0], gridLons[len(gridLons)-1])
	lat := v.uniform(gridLats[0], gridLats[len(gridLats)-1])
	if v.chance(0.5) {
		lon = gridLons[v.r.IntN(len(gridLons))] + v.uniform(-0.012, 0.012)
	} else {
		lat = gridLats[v.r.IntN(len(gridLats))] + v.uniform(-0.008, 0.008)
	}
	p := point{lon, lat}
	if len(v.history) < 64 {
		v.history = append(v.history, p)
	} else {
		v.history[v.r.IntN(len(v.history))] = p
	}
	return p
}

// borderAdd is GEOADD of members already written (mostly) at points near
// the grid's borders of the heavy keys: the writes that hand members off.
func (g *clusterGen) borderAdd(bad bool) []string {
	v := &g.v
	args := []string{"GEOADD", v.pick(heavyKeys)}
	if v.chance(0.1) {
		args = append(args, v.randCase("NX"))
	} else if v.chance(0.1) {
		args = append(args, v.randCase("XX"))
	}
	if v.chance(0.2) {
		args = append(args, v.randCase("CH"))
	}
	for i := 1 + v.r.IntN(4); i > 0; i-- {
		p := g.borderPoint()
		m := v.addedMember()
		if v.chance(0.3) {
			m = v.newMember()
		}
		args = append(args, v.coord(p.lon), v.coord(p.lat), m)
	}
	if bad {
		args = args[:len(args)-1] // not a multiple of 3
	}
	return args
}

// zincrby adds a geo-sized step (about a cell) or a plain number to a
// member's score; a step of inf on an infinite score makes Redis's NaN
// error.
func (g *clusterGen) zincrby(bad bool) []string {
	v := &g.v
	var incr string
	switch n := v.r.IntN(10); {
	case n < 4:
		incr = strconv.Itoa(v.r.IntN(2000) - 1000)
	case n < 7:
		incr = strconv.FormatInt(v.r.Int64N(1<<40)-1<<39, 10)
	case n < 9:
		incr = v.pick(scorePool)
	default:
		incr = strconv.FormatFloat(v.uniform(-10, 10), 'g', -1, 64)
	}
	if bad {
		incr = v.pick(badScores)
	}
	return []string{"ZINCRBY", g.geoKey(), incr, v.addedMember()}
}

// zaddIncr is ZADD ... INCR with any of its flags: the increment's
// conditional write decides NX, XX, GT and LT at the shard.
func (g *clusterGen) zaddIncr(bad bool) []string {
	v := &g.v
	args := []string{"ZADD", g.geoKey()}
	if v.chance(0.3) {
		args = append(args, v.randCase(v.pick([]string{"NX", "XX"})))
	}
	if v.chance(0.3) {
		args = append(args, v.randCase(v.pick([]string{"GT", "LT"})))
	}
	if v.chance(0.3) {
		args = append(args, v.randCase("CH"))
	}
	incr := g.zincrby(false)
	args = append(args, v.randCase("INCR"), incr[2], incr[3])
	if bad {
		args = append(args, "1", v.member()) // INCR takes one pair only
	}
	return args
}

func (g *clusterGen) zcount(bad bool) []string {
	args := []string{"ZCOUNT", g.geoKey(), g.scoreBound(), g.scoreBound()}
	if bad {
		args[2] = g.v.pick([]string{"abc", "(x", "nan", "("})
	}
	return args
}
