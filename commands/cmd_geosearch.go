package commands

import (
	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

func init() {
	georadius := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, byCoords) }
	georadiusRO := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, byCoords|noStore) }
	bymember := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, byMember) }
	bymemberRO := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, byMember|noStore) }
	search := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, searchCmd) }
	searchStore := func(e *Engine, c *Client, args [][]byte) { geoSearch(e, c, args, searchCmd|searchStore) }
	register(
		&command{name: "georadius", arity: -6, flags: []string{"write", "denyoom"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: georadius, aloneIf: radiusStoreAlone},
		&command{name: "georadius_ro", arity: -6, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: georadiusRO},
		&command{name: "georadiusbymember", arity: -5, flags: []string{"write", "denyoom"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: bymember, aloneIf: radiusStoreAlone},
		&command{name: "georadiusbymember_ro", arity: -5, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: bymemberRO},
		&command{name: "geosearch", arity: -7, flags: []string{"readonly"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: search},
		&command{name: "geosearchstore", arity: -8, flags: []string{"write", "denyoom"}, firstKey: 1, lastKey: 2, keyStep: 1, handler: searchStore, aloneIf: mapsAlone},
	)
}

// radiusStoreAlone is mapsAlone for GEORADIUS*, which write only with
// STORE or STOREDIST: a search that stores replaces its destination key
// (which word that is, is not parsed yet).
func radiusStoreAlone(e *Engine, c *Client, args [][]byte) bool {
	return hasStore(args) && mapsAlone(e, c, args)
}

// hasStore reports whether a GEORADIUS* command will write a key.
func hasStore(args [][]byte) bool {
	for _, a := range args {
		if eq(a, "store") || eq(a, "storedist") {
			return true
		}
	}
	return false
}

// Which command of the family is running.
const (
	byCoords    = 1 << iota // GEORADIUS: centre and radius are positional
	byMember                // GEORADIUSBYMEMBER: member and radius are positional
	searchCmd               // GEOSEARCH: everything is an option
	searchStore             // GEOSEARCHSTORE
	noStore                 // the _RO variants
)

const (
	sortNone = iota
	sortAsc
	sortDesc
)

// searchArgs is a parsed search request.
type searchArgs struct {
	lon, lat            float64
	shape               geo.Shape
	withDist, withHash  bool
	withCoord, any      bool
	sort                int
	count               int64
	storeKey            []byte
	storeDist           bool
	dropOnly            bool // the destination is no string and has no TTL here
	fromMember, fromLoc bool
	byRadius, byBox     bool
	byPolygon           bool
}

// geoSearch runs the GEORADIUS and GEOSEARCH families, checking arguments
// in exactly Redis's order (GEO-SPEC §6.5).
func geoSearch(e *Engine, c *Client, args [][]byte, flags int) {
	srcArg := args[1]
	if flags&searchStore != 0 {
		srcArg = args[2] // the destination is never type-checked
	}
	stores := flags&searchStore != 0 || flags&(searchCmd|noStore) == 0 && hasStore(args)
	if !stores && !e.geoOnly(c, srcArg) {
		return
	}
	if stores && e.isString(c, srcArg) {
		c.W.Error(errWrongType)
		return
	}
	var a searchArgs
	// A search that stores with the keyspace alone writes a key's maps
	// after its remote calls, and keeps the keyspace to the end; one that
	// runs shared drops its destination's geo key alone.
	a.dropOnly = stores && e.letGoMaps(c)
	src := c.key(srcArg)
	base := 2
	switch {
	case flags&byCoords != 0:
		base = 6
		lon, lat, err := parseLonLat(args[2], args[3])
		if err != "" {
			c.W.Error(err)
			return
		}
		a.lon, a.lat = lon, lat
		if err := parseRadius(&a.shape, args[4], args[5]); err != "" {
			c.W.Error(err)
			return
		}
	case flags&byMember != 0:
		base = 5
		var score float64
		var ok bool
		var msg string
		e.outside(c, func() { score, ok, msg = lookupMember(e, src, string(args[2])) })
		if msg != "" {
			c.W.Error(msg)
			return
		}
		if !ok {
			break // a missing key checks no radius
		}
		a.lon, a.lat = geo.Decode(score)
		if err := parseRadius(&a.shape, args[3], args[4]); err != "" {
			c.W.Error(err)
			return
		}
	case flags&searchStore != 0:
		base = 3
		a.storeKey = args[1]
	}
	if err := parseSearchOptions(e, c, &a, src, args[base:], flags); err != "" {
		c.W.Error(err)
		return
	}
	if err := a.validate(args[0], flags); err != "" {
		c.W.Error(err)
		return
	}
	if a.count != 0 && a.sort == sortNone && !a.any {
		a.sort = sortAsc
	}
	var hits []shard.Hit
	if !(flags&byMember != 0 && a.shape.Unit == 0) { // BYMEMBER on a missing key found nothing
		var buf *[]shard.Hit
		e.outside(c, func() { hits, buf = e.find(src, &a, e.hits.get()) })
		defer e.hits.put(buf)
	}
	if a.storeKey != nil {
		e.store(c, &a, hits)
		return
	}
	a.reply(c, hits)
}

// find runs the search and orders its hits as Redis would. The nearest K
// of a radius search come from a nearest-first walk, which is exact unless
// distances tie; otherwise every hit is collected in Redis's discovery
// order and sorted with Redis's own algorithms. The hits go into *buf
// (the hit pool's), which keeps all of them for the pool to clear; a full
// search may swap buf for a bigger one, the box to give back.
func (e *Engine) find(src shard.Key, a *searchArgs, buf *[]shard.Hit) ([]shard.Hit, *[]shard.Hit) {
	q := geo.NewSearch(a.lon, a.lat, a.shape)
	q.NeedDist = a.sort != sortNone || a.withDist || a.storeDist
	if a.count > 0 && !a.any && a.sort == sortAsc && !a.shape.Box {
		res, exact := e.Router().NearestInto(*buf, src, q, int(a.count))
		*buf = res.Hits
		if exact {
			return res.Hits, buf
		}
	}
	limit := 0
	if a.any {
		limit = int(a.count)
	} else {
		buf = e.hits.grow(buf)
	}
	hits := e.Router().SearchInto((*buf)[:0], src, q, limit).Hits
	*buf = hits
	n := len(hits)
	if a.count > 0 && int64(n) > a.count {
		n = int(a.count)
	}
	dist := func(h *shard.Hit) float64 { return h.Dist }
	switch {
	case a.sort == sortNone:
	case n == len(hits):
		geo.Sort(hits, dist, a.sort == sortDesc)
	default:
		geo.SortTop(hits, n, dist, a.sort == sortDesc)
	}
	return hits[:n], buf
}

// parseRadius reads "radius unit".
func parseRadius(s *geo.Shape, radius, unit []byte) string {
	r, ok := geo.ParseFloat(radius)
	if !ok {
		return "ERR need numeric radius"
	}
	if r < 0 {
		return "ERR radius cannot be negative"
	}
	f, ok := geo.ParseUnit(unit)
	if !ok {
		return errUnit
	}
	*s = geo.Shape{Radius: r, Unit: f}
	return ""
}

// parseBox reads "width height unit".
func parseBox(s *geo.Shape, width, height, unit []byte) string {
	w, ok := geo.ParseFloat(width)
	if !ok {
		return "ERR need numeric width"
	}
	h, ok := geo.ParseFloat(height)
	if !ok {
		return "ERR need numeric height"
	}
	if h < 0 || w < 0 {
		return "ERR height or width cannot be negative"
	}
	f, ok := geo.ParseUnit(unit)
	if !ok {
		return errUnit
	}
	*s = geo.Shape{Box: true, Width: w, Height: h, Unit: f}
	return ""
}

// lookupMember reads the position of a search's centre member. Not found
// with no msg means the key does not exist, which checks no radius; msg
// is the error to answer: no such member, or, in cluster mode, -TRYAGAIN
// when a shard that may hold it could not be read.
func lookupMember(e *Engine, src shard.Key, m string) (score float64, found bool, msg string) {
	score, ok, err := e.Router().TryScore(src, m)
	if err != nil {
		return 0, false, "TRYAGAIN " + err.Error()
	}
	if ok {
		return score, true, ""
	}
	exists, err := e.Router().TryExists(src)
	switch {
	case err != nil:
		return 0, false, "TRYAGAIN " + err.Error()
	case exists:
		return 0, false, errNoMember
	}
	return 0, false, ""
}

// parseSearchOptions scans the options left to right; the first error
// stops it, as in Redis.
func parseSearchOptions(e *Engine, c *Client, a *searchArgs, src shard.Key, opts [][]byte, flags int) string {
	search := flags&searchCmd != 0
	for i := 0; i < len(opts); i++ {
		left := len(opts) - i - 1 // words after this one
		o := opts[i]
		switch {
		case eq(o, "withdist"):
			a.withDist = true
		case eq(o, "withhash"):
			a.withHash = true
		case eq(o, "withcoord"):
			a.withCoord = true
		case eq(o, "any"):
			a.any = true
		case eq(o, "asc"):
			a.sort = sortAsc
		case eq(o, "desc"):
			a.sort = sortDesc
		case eq(o, "count") && left >= 1:
			n, ok := geo.ParseInt(opts[i+1])
			if !ok {
				return errNotInt
			}
			if n <= 0 {
				return "ERR COUNT must be > 0"
			}
			a.count = n
			i++
		case (eq(o, "store") || eq(o, "storedist")) && left >= 1 && flags&(noStore|searchCmd) == 0:
			a.storeKey = opts[i+1]
			a.storeDist = eq(o, "storedist")
			i++
		case eq(o, "storedist") && flags&searchStore != 0:
			a.storeDist = true
		case search && eq(o, "bypolygon") && left >= 1:
			n, err := parsePolygon(&a.shape, a, opts[i+1:], flags)
			if err != "" {
				return err
			}
			a.byPolygon = true
			i += n
		case search && a.byPolygon && isShapeOption(o):
			return errPolygonConflict
		case eq(o, "frommember") && left >= 1 && search && !a.fromLoc:
			a.fromMember = true
			m := string(opts[i+1])
			i++
			score, ok, msg := lookupMember(e, src, m)
			if msg != "" {
				return msg
			}
			if !ok {
				continue
			}
			a.lon, a.lat = geo.Decode(score)
		case eq(o, "fromlonlat") && left >= 2 && search && !a.fromMember:
			lon, lat, err := parseLonLat(opts[i+1], opts[i+2])
			if err != "" {
				return err
			}
			a.lon, a.lat, a.fromLoc = lon, lat, true
			i += 2
		case eq(o, "byradius") && left >= 2 && search && !a.byBox:
			if err := parseRadius(&a.shape, opts[i+1], opts[i+2]); err != "" {
				return err
			}
			a.byRadius = true
			i += 2
		case eq(o, "bybox") && left >= 3 && search && !a.byRadius:
			if err := parseBox(&a.shape, opts[i+1], opts[i+2], opts[i+3]); err != "" {
				return err
			}
			a.byBox = true
			i += 3
		default:
			return errSyntax
		}
	}
	return ""
}

// validate applies the checks Redis makes after scanning the options.
func (a *searchArgs) validate(name []byte, flags int) string {
	if a.storeKey != nil && (a.withDist || a.withHash || a.withCoord) {
		if flags&searchStore != 0 {
			return "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
		}
		return "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	}
	if flags&searchCmd != 0 && !(a.fromMember || a.fromLoc || a.byPolygon) {
		return "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(name)
	}
	if flags&searchCmd != 0 && !(a.byRadius || a.byBox || a.byPolygon) {
		return "ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(name)
	}
	if a.any && a.count == 0 {
		return "ERR the ANY argument requires COUNT argument"
	}
	return ""
}

// reply writes the found members, each with the extras asked for, always
// in the order distance, hash, coordinates.
func (a *searchArgs) reply(c *Client, hits []shard.Hit) {
	extras := 0
	for _, on := range []bool{a.withDist, a.withHash, a.withCoord} {
		if on {
			extras++
		}
	}
	c.W.Array(len(hits))
	for i := range hits {
		h := &hits[i]
		if extras > 0 {
			c.W.Array(extras + 1)
		}
		c.W.BulkString(h.Member)
		if a.withDist {
			writeDist(c, h.Dist/a.shape.Unit)
		}
		if a.withHash {
			c.W.Int(int64(h.Score))
		}
		if a.withCoord {
			c.W.Array(2)
			writeCoord(c, h.Lon)
			writeCoord(c, h.Lat)
		}
	}
}

// store replaces the destination with a sorted set of the hits, scored by
// position or by distance in the request's unit; no hits delete it.
// In cluster mode a dst whose drop was refused, or members that could not
// all be stored, answer -TRYAGAIN (expire_cycle.go).
func (e *Engine) store(c *Client, a *searchArgs, hits []shard.Hit) {
	drop := e.deleteKey
	if a.dropOnly {
		drop = e.dropGeo
	}
	if _, err := drop(c, c.db, string(a.storeKey)); tryAgain(c, err) {
		return
	}
	k := c.key(a.storeKey)
	score := func(h *shard.Hit) float64 {
		if a.storeDist {
			return h.Dist / a.shape.Unit
		}
		return h.Score
	}
	if e.Router().Clustered() {
		members, scores := make([]string, len(hits)), make([]float64, len(hits))
		for i := range hits {
			members[i], scores[i] = hits[i].Member, score(&hits[i])
		}
		var err error
		e.outside(c, func() { _, _, err = e.Router().TryAddMany(k, members, scores, router.AddFlags{}) })
		if tryAgain(c, err) {
			return
		}
		c.W.Int(int64(len(hits)))
		return
	}
	for i := range hits {
		e.Router().Add(k, hits[i].Member, score(&hits[i]), router.AddFlags{})
	}
	c.W.Int(int64(len(hits)))
}
