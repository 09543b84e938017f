package geo

import (
	"fmt"
	"geoshard/resp"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// The differential tests below run the same data and queries through a
// real redis-server 7.0 and through this package, and compare the reply
// text byte for byte. With cgo (libm distances) no difference is allowed;
// without cgo distances may differ in the last bit, so the comparisons
// that depend on it only report.

type livePoint struct {
	member           string
	lonText, latText string
	lon, lat         float64
}

// diffs counts mismatches and reports the first few in full.
type diffs struct {
	t      *testing.T
	what   string
	n, all int
	strict bool
}

func newDiffs(t *testing.T, what string, strict bool) *diffs {
	return &diffs{t: t, what: what, strict: strict}
}

func (d *diffs) check(ctx, got, want string) {
	d.all++
	if got == want {
		return
	}
	d.n++
	if d.n <= 5 {
		msg := fmt.Sprintf("%s: %s\n redis: %s\n geo:   %s", d.what, clip(ctx, 0), clip(got, firstDiff(got, want)), clip(want, firstDiff(got, want)))
		if d.strict {
			d.t.Error(msg)
		} else {
			d.t.Log(msg)
		}
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// clip shortens s to a window around position at.
func clip(s string, at int) string {
	const w = 150
	lo, hi := max(0, at-w), min(len(s), at+w)
	out := s[lo:hi]
	if lo > 0 {
		out = "..." + out
	}
	if hi < len(s) {
		out += "..."
	}
	return out
}

func (d *diffs) done() {
	d.t.Logf("%s: %d compared, %d mismatches", d.what, d.all, d.n)
	if d.all == 0 {
		d.t.Errorf("%s: nothing compared", d.what)
	}
}

// coordText spells a coordinate in one of the forms strtod accepts.
func coordText(rng *rand.Rand, x float64) string {
	switch rng.Intn(8) {
	case 0:
		return strconv.FormatFloat(x, 'e', 20, 64)
	case 1:
		return strconv.FormatFloat(x, 'x', -1, 64)
	case 2:
		return strconv.FormatFloat(x, 'f', 3+rng.Intn(5), 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func clampValid(lon, lat float64) (float64, float64) {
	lon = math.Mod(lon+540, 360) - 180
	return lon, math.Max(MinLat, math.Min(MaxLat, lat))
}

func genPoints(rng *rand.Rand) []livePoint {
	var raw [][2]float64
	add := func(lon, lat float64) { raw = append(raw, [2]float64{lon, lat}) }
	for _, p := range [][2]float64{{0, 0}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {180, 0}, {-180, 0},
		{0, MaxLat}, {0, MinLat}, {180, MaxLat}, {-180, MinLat}, {180, MinLat}, {-180, MaxLat}, {180, -28.2},
		{0, 85.05112877}, {179.9999999, 0}, {-179.9999999, 0}, {13.361389, 38.115556}, {15.087269, 37.502669},
		{179.5, 36}, {-179.5, 36}, {180, 36}, {-180, 36}, {0, 85}, {179.9999, 85}} {
		add(p[0], p[1])
	}
	clusters := []struct {
		lon, lat, spread float64
		n                int
	}{
		{4.9, 52.37, 0.05, 400}, {-73.95, 40.75, 0.2, 300}, {10, 10, 0.00001, 100}, {2.35, 48.85, 2, 200},
		{0, 84.8, 1, 100}, {179.9, 0, 0.5, 150}, {-179.9, -20, 0.5, 150}, {100, -84.9, 3, 100}, {-40, 79.9, 5, 100},
	}
	for _, c := range clusters {
		for i := 0; i < c.n; i++ {
			add(clampValid(c.lon+rng.NormFloat64()*c.spread, c.lat+rng.NormFloat64()*c.spread))
		}
	}
	for i := 0; i < 40; i++ { // exact duplicates: ties at one cell
		add(4.9, 52.37)
	}
	for i := 0; i < 200; i++ { // north and south edges, all longitudes
		add((rng.Float64()-0.5)*360, float64(1-2*(i%2))*(MaxLat-rng.Float64()*0.5))
	}
	for i := 0; i < 1300; i++ {
		add((rng.Float64()-0.5)*360, (rng.Float64()-0.5)*2*MaxLat)
	}
	pts := make([]livePoint, len(raw))
	for i, p := range raw {
		lt, at := coordText(rng, p[0]), coordText(rng, p[1])
		lon, ok1 := ParseFloat([]byte(lt))
		lat, ok2 := ParseFloat([]byte(at))
		if !ok1 || !ok2 || !Valid(lon, lat) {
			lt, at = strconv.FormatFloat(p[0], 'g', -1, 64), strconv.FormatFloat(p[1], 'g', -1, 64)
			lon, lat = p[0], p[1]
		}
		pts[i] = livePoint{fmt.Sprintf("p%04d", i), lt, at, lon, lat}
	}
	return pts
}

func mustDo(t *testing.T, rc *respConn, args ...string) any {
	t.Helper()
	v, err := rc.do(args...)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return v
}

func mustPipeline(t *testing.T, rc *respConn, cmds [][]string) []any {
	t.Helper()
	v, err := rc.pipeline(cmds)
	if err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	return v
}

// text renders a reply for comparison.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return "(nil)"
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case resp.ReplyError:
		return "ERR(" + string(x) + ")"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = text(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprintf("%#v", v)
}

func TestAgainstRedisServer(t *testing.T) {
	rc := startRedis(t)
	rng := rand.New(rand.NewSource(42))
	pts := genPoints(rng)
	m := &zmodel{}
	for i := 0; i < len(pts); i += 300 {
		args := []string{"GEOADD", "pts"}
		n := 0
		for _, p := range pts[i:min(i+300, len(pts))] {
			args = append(args, p.lonText, p.latText, p.member)
			m.add(p.member, Encode(p.lon, p.lat))
			n++
		}
		if got := mustDo(t, rc, args...); got != int64(n) {
			t.Fatalf("GEOADD added %v, want %d", got, n)
		}
	}
	members := make([]string, len(pts))
	for i, p := range pts {
		members[i] = p.member
	}

	t.Run("scores", func(t *testing.T) { liveScores(t, rc, m) })
	t.Run("geopos", func(t *testing.T) { liveGeopos(t, rc, m, "pts", members) })
	t.Run("geohash", func(t *testing.T) { liveGeohash(t, rc, m, "pts", members) })
	t.Run("geodist", func(t *testing.T) { liveGeodist(t, rc, m, rng, members) })
	t.Run("odd scores", func(t *testing.T) { liveOddScores(t, rc, rng) })
	t.Run("search", func(t *testing.T) { liveSearch(t, rc, m, rng, pts) })
	t.Run("ties", func(t *testing.T) { liveTies(t, rc, rng) })
	t.Run("parsing", func(t *testing.T) { liveParsing(t, rc) })
}

func liveScores(t *testing.T, rc *respConn, m *zmodel) {
	reply, _ := mustDo(t, rc, "ZRANGE", "pts", "0", "-1", "WITHSCORES").([]any)
	items := m.sorted()
	if len(reply) != 2*len(items) {
		t.Fatalf("ZRANGE returned %d elements, want %d", len(reply), 2*len(items))
	}
	d := newDiffs(t, "ZRANGE WITHSCORES (order and score text)", true)
	for i, it := range items {
		d.check(fmt.Sprintf("#%d", i), text(reply[2*i])+" "+text(reply[2*i+1]),
			text(it.member)+" "+text(string(AppendScore(nil, it.score))))
	}
	d.done()
}

func liveGeopos(t *testing.T, rc *respConn, m *zmodel, key string, members []string) {
	reply, _ := mustDo(t, rc, append([]string{"GEOPOS", key}, members...)...).([]any)
	d := newDiffs(t, "GEOPOS", true)
	for i, mem := range members {
		s, _ := m.score(mem)
		lon, lat := Decode(s)
		want := []any{string(AppendCoord(nil, lon)), string(AppendCoord(nil, lat))}
		d.check(mem, text(reply[i]), text(want))
	}
	d.done()
}

func liveGeohash(t *testing.T, rc *respConn, m *zmodel, key string, members []string) {
	reply, _ := mustDo(t, rc, append([]string{"GEOHASH", key}, members...)...).([]any)
	d := newDiffs(t, "GEOHASH", true)
	for i, mem := range members {
		s, _ := m.score(mem)
		d.check(mem, text(reply[i]), text(Hash(s)))
	}
	d.done()
}

func liveGeodist(t *testing.T, rc *respConn, m *zmodel, rng *rand.Rand, members []string) {
	units := []string{"", "m", "km", "ft", "mi", "KM", "Mi"}
	var cmds [][]string
	for i := 0; i < 2000; i++ {
		a := rng.Intn(len(members))
		b := rng.Intn(len(members))
		if i%2 == 0 { // neighbours in generation order: same cluster, small distances
			b = min(a+1+rng.Intn(3), len(members)-1)
		}
		cmd := []string{"GEODIST", "pts", members[a], members[b]}
		if u := units[rng.Intn(len(units))]; u != "" {
			cmd = append(cmd, u)
		}
		cmds = append(cmds, cmd)
	}
	replies := mustPipeline(t, rc, cmds)
	d := newDiffs(t, "GEODIST", ExactLibm)
	for i, cmd := range cmds {
		unit := 1.0
		if len(cmd) == 5 {
			unit, _ = ParseUnit([]byte(cmd[4]))
		}
		s1, _ := m.score(cmd[2])
		s2, _ := m.score(cmd[3])
		lon1, lat1 := Decode(s1)
		lon2, lat2 := Decode(s2)
		d.check(strings.Join(cmd, " "), text(replies[i]), text(string(AppendDist(nil, Distance(lon1, lat1, lon2, lat2)/unit))))
	}
	d.done()
}

func liveOddScores(t *testing.T, rc *respConn, rng *rand.Rand) {
	// -0 is left out here: a listpack-encoded zset (how this one starts)
	// stores it as "0"; the skiplist case is checked below.
	scores := []float64{0, 1, 1.5, 0.1, -1, -1.5, 1e20, -1e20, math.Inf(1), math.Inf(-1),
		1 << 52, 1<<52 + 1, 1 << 53, 1<<53 + 2, 1 << 63, math.Exp2(64), 1e300, 5e-324, 3479099956230698,
		3479099956230698.7, 10133099161583616, 6755399441055744, 4503599627370495, 9007199254740991, 123.456,
		1e16, 1e17, 1e-5, 123456789012345678}
	for len(scores) < 400 {
		switch rng.Intn(3) {
		case 0:
			if x := math.Float64frombits(rng.Uint64()); x == x {
				scores = append(scores, x)
			}
		case 1:
			scores = append(scores, float64(rng.Int63n(1<<54)))
		default:
			scores = append(scores, rng.Float64()*(1<<52))
		}
	}
	args := []string{"ZADD", "odd"}
	members := make([]string, len(scores))
	for i, s := range scores {
		members[i] = fmt.Sprintf("o%03d", i)
		args = append(args, string(AppendScore(nil, s)), members[i])
	}
	mustDo(t, rc, args...)
	m := &zmodel{}
	for i, s := range scores {
		m.add(members[i], s)
	}
	var cmds [][]string
	for _, mem := range members {
		cmds = append(cmds, []string{"ZSCORE", "odd", mem})
	}
	replies := mustPipeline(t, rc, cmds)
	d := newDiffs(t, "ZSCORE", true)
	for i, mem := range members {
		s, _ := m.score(mem)
		d.check(mem, text(replies[i]), text(string(AppendScore(nil, s))))
	}
	d.done()
	liveGeopos(t, rc, m, "odd", members)
	liveGeohash(t, rc, m, "odd", members)

	// A skiplist keeps -0, and ZSCORE prints it with its sign.
	mustDo(t, rc, "CONFIG", "SET", "zset-max-listpack-entries", "0")
	mustDo(t, rc, "ZADD", "negzero", "-0", "x")
	mustDo(t, rc, "CONFIG", "SET", "zset-max-listpack-entries", "128")
	if got, want := text(mustDo(t, rc, "ZSCORE", "negzero", "x")), text(string(AppendScore(nil, math.Copysign(0, -1)))); got != want {
		t.Errorf("ZSCORE of -0 in a skiplist: redis %s, geo %s", got, want)
	}
}

// randomQuery builds a GEOSEARCH (or GEOSEARCHSTORE) command and the
// matching Search.
type liveQuery struct {
	args      []string
	search    *Search
	count     int
	any       bool
	order     int
	withCoord bool
}

func randomQuery(rng *rand.Rand, m *zmodel, pts []livePoint, key string) liveQuery {
	var q liveQuery
	q.args = []string{"GEOSEARCH", key}
	var lon, lat float64
	if rng.Intn(8) == 0 {
		p := pts[rng.Intn(len(pts))]
		q.args = append(q.args, "FROMMEMBER", p.member)
		s, _ := m.score(p.member)
		lon, lat = Decode(s)
	} else {
		switch rng.Intn(5) {
		case 0, 1: // around a stored point
			p := pts[rng.Intn(len(pts))]
			lon, lat = clampValid(p.lon+rng.NormFloat64()*0.01, p.lat+rng.NormFloat64()*0.01)
		case 2:
			lon, lat = randomCentre(rng)
		default:
			lon, lat = (rng.Float64()-0.5)*360, (rng.Float64()-0.5)*2*MaxLat
		}
		lt, at := coordText(rng, lon), coordText(rng, lat)
		lon, _ = ParseFloat([]byte(lt))
		lat, _ = ParseFloat([]byte(at))
		q.args = append(q.args, "FROMLONLAT", lt, at)
	}
	units := []string{"m", "km", "ft", "mi", "KM", "Ft"}
	unitText := units[rng.Intn(len(units))]
	unit, _ := ParseUnit([]byte(unitText))
	metres := math.Pow(10, rng.Float64()*6.5+0.5) // 3 m .. 10000 km
	switch rng.Intn(20) {
	case 0:
		metres = 0
	case 1:
		metres = 2e7 + rng.Float64()*4e7
	}
	size := func(f float64) (string, float64) {
		s := strconv.FormatFloat(metres*f/unit, 'g', 1+rng.Intn(8), 64)
		v, _ := ParseFloat([]byte(s))
		return s, v
	}
	shape := Shape{Unit: unit}
	if rng.Intn(2) == 0 {
		var rs string
		rs, shape.Radius = size(1)
		q.args = append(q.args, "BYRADIUS", rs, unitText)
	} else {
		shape.Box = true
		var ws, hs string
		ws, shape.Width = size(0.3 + rng.Float64()*2)
		hs, shape.Height = size(0.3 + rng.Float64()*2)
		q.args = append(q.args, "BYBOX", ws, hs, unitText)
	}
	q.order = rng.Intn(3)
	if q.order == sortAsc {
		q.args = append(q.args, "ASC")
	} else if q.order == sortDesc {
		q.args = append(q.args, "DESC")
	}
	if rng.Intn(3) == 0 {
		q.count = 1 + rng.Intn(20)
		q.args = append(q.args, "COUNT", strconv.Itoa(q.count))
		if rng.Intn(3) == 0 {
			q.any = true
			q.args = append(q.args, "ANY")
		}
	}
	q.search = NewSearch(lon, lat, shape)
	return q
}

// expectedReply renders what Redis should answer with WITHDIST WITHHASH
// [WITHCOORD].
func expectedReply(hits []hit, unit float64, withCoord bool) []any {
	out := make([]any, len(hits))
	for i, h := range hits {
		e := []any{h.member, string(AppendDist(nil, h.dist/unit)), int64(h.score)}
		if withCoord {
			lon, lat := Decode(h.score)
			e = append(e, []any{string(AppendCoord(nil, lon)), string(AppendCoord(nil, lat))})
		}
		out[i] = e
	}
	return out
}

func liveSearch(t *testing.T, rc *respConn, m *zmodel, rng *rand.Rand, pts []livePoint) {
	d := newDiffs(t, "GEOSEARCH", ExactLibm)
	ds := newDiffs(t, "GEOSEARCHSTORE STOREDIST", ExactLibm)
	var cmds [][]string
	var queries []liveQuery
	for i := 0; i < 600; i++ {
		q := randomQuery(rng, m, pts, "pts")
		q.withCoord = rng.Intn(2) == 0
		args := append([]string(nil), q.args...)
		args = append(args, "WITHDIST", "WITHHASH")
		if q.withCoord {
			args = append(args, "WITHCOORD")
		}
		cmds = append(cmds, args)
		queries = append(queries, q)
	}
	replies := mustPipeline(t, rc, cmds)
	hitsSeen := 0
	for i, q := range queries {
		hits := m.query(q.search, q.count, q.any, q.order)
		hitsSeen += len(hits)
		d.check(strings.Join(cmds[i], " "), text(replies[i]), text(expectedReply(hits, q.search.Shape.Unit, q.withCoord)))
	}
	d.done()
	t.Logf("%d search results compared", hitsSeen)
	if hitsSeen < 2000 {
		t.Errorf("only %d search results: the queries do not exercise much", hitsSeen)
	}

	// STOREDIST keeps full-precision distances in the request's unit.
	for i, q := range queries[:200] {
		args := append([]string{"GEOSEARCHSTORE", "dst"}, q.args[1:]...)
		args = append(args, "STOREDIST")
		n := mustDo(t, rc, args...)
		hits := m.query(q.search, q.count, q.any, q.order)
		got := "count " + text(n)
		want := "count " + strconv.Itoa(len(hits))
		if len(hits) > 0 {
			got += " " + text(mustDo(t, rc, "ZRANGE", "dst", "0", "-1", "WITHSCORES"))
			stored := &zmodel{}
			for _, h := range hits {
				stored.add(h.member, h.dist/q.search.Shape.Unit)
			}
			var exp []any
			for _, it := range stored.sorted() {
				exp = append(exp, it.member, string(AppendScore(nil, it.score)))
			}
			want += " " + text(exp)
		}
		ds.check(fmt.Sprintf("query %d: %s", i, strings.Join(args, " ")), got, want)
	}
	ds.done()
}

// liveTies checks COUNT with many equal distances, where only the exact
// pqsort reproduces Redis' order.
func liveTies(t *testing.T, rc *respConn, rng *rand.Rand) {
	m := &zmodel{}
	var pts []livePoint
	groups := []struct {
		lon, lat float64
		n        int
	}{{2.35, 48.85, 60}, {2.3501, 48.85, 25}, {2.35, 48.8501, 25}, {2.3499, 48.85, 25}, {2.352, 48.851, 5}}
	args := []string{"GEOADD", "ties"}
	for g, grp := range groups {
		for _, i := range rng.Perm(grp.n) {
			p := livePoint{member: fmt.Sprintf("g%d-m%02d", g, i), lon: grp.lon, lat: grp.lat}
			p.lonText, p.latText = strconv.FormatFloat(grp.lon, 'g', -1, 64), strconv.FormatFloat(grp.lat, 'g', -1, 64)
			pts = append(pts, p)
			args = append(args, p.lonText, p.latText, p.member)
			m.add(p.member, Encode(p.lon, p.lat))
		}
	}
	mustDo(t, rc, args...)
	d := newDiffs(t, "tied COUNT", true)
	var cmds [][]string
	var queries []liveQuery
	for i := 0; i < 300; i++ {
		q := liveQuery{order: rng.Intn(3), count: 1 + rng.Intn(150), any: rng.Intn(6) == 0}
		lon, lat := 2.35, 48.85
		if i%2 == 1 {
			lon, lat = Decode(Encode(2.35, 48.85))
		}
		q.args = []string{"GEOSEARCH", "ties", "FROMLONLAT", strconv.FormatFloat(lon, 'g', -1, 64),
			strconv.FormatFloat(lat, 'g', -1, 64), "BYRADIUS", "1", "km"}
		if q.order == sortAsc {
			q.args = append(q.args, "ASC")
		} else if q.order == sortDesc {
			q.args = append(q.args, "DESC")
		}
		q.args = append(q.args, "COUNT", strconv.Itoa(q.count))
		if q.any {
			q.args = append(q.args, "ANY")
		}
		q.search = NewSearch(lon, lat, Shape{Radius: 1, Unit: UnitKM})
		cmds = append(cmds, q.args)
		queries = append(queries, q)
	}
	replies := mustPipeline(t, rc, cmds)
	for i, q := range queries {
		var want []any
		for _, h := range m.query(q.search, q.count, q.any, q.order) {
			want = append(want, h.member)
		}
		if want == nil {
			want = []any{}
		}
		d.check(strings.Join(cmds[i], " "), text(replies[i]), text(want))
	}
	d.done()
	_ = pts
}

// liveParsing sends tricky number and unit spellings through GEOADD,
// GEODIST and GEOSEARCH and compares acceptance, errors and results with
// ParseFloat, ParseInt, ParseUnit, Valid and InvalidPairError.
func liveParsing(t *testing.T, rc *respConn) {
	floats := []string{"5", "+5", "-5", ".5", "5.", "1e1", "1E+01", "0x10", "0X1p4", "0x1.8", "-0x.8p1", "0x",
		"inf", "-inf", "Infinity", "nan", "-nan", " 5", "5 ", "", "1_0", "1e400", "1e-400", "1e-310", "0e99999",
		"-0", "0x1p-1074", "1e", "1e+", "0x1p", ".", "+", "-", "e5", "infinit", "1.2.3", "5\x00", "0x1P-1080",
		"180", "180.0000000000001", "-180", "-180.00000000000003", "500", "1e30", "-1e30", "0x1p200", "123456789012345678901234567890"}
	lats := []string{"0", "85.05112878", "85.05112879", "-85.05112878", "-85.051128780001", "inf", "1"}
	var cmds [][]string
	type pair struct{ lon, lat string }
	var pairs []pair
	for _, f := range floats {
		for _, l := range lats {
			pairs = append(pairs, pair{f, l})
			cmds = append(cmds, []string{"GEOADD", "parse", f, l, "m:" + f + "," + l})
		}
	}
	replies := mustPipeline(t, rc, cmds)
	d := newDiffs(t, "GEOADD parsing", true)
	m := &zmodel{}
	var added []string
	for i, p := range pairs {
		lon, ok1 := ParseFloat([]byte(p.lon))
		lat, ok2 := ParseFloat([]byte(p.lat))
		var want any
		switch {
		case !ok1 || !ok2:
			want = resp.ReplyError("ERR value is not a valid float")
		case !Valid(lon, lat):
			want = resp.ReplyError(InvalidPairError(lon, lat))
		default:
			want = int64(1)
			member := "m:" + p.lon + "," + p.lat
			m.add(member, Encode(lon, lat))
			added = append(added, member)
		}
		d.check(strings.Join(cmds[i], " "), text(replies[i]), text(want))
	}
	d.done()
	liveGeopos(t, rc, m, "parse", added)

	// Units (any case; a NUL ends the word) and COUNT integers.
	units := []string{"m", "M", "km", "KM", "kM", "ft", "Ft", "mi", "MI", "m\x00x", "km\x00", "", "meters", "k", "\x00m"}
	ints := []string{"1", "10", "-1", "0", "01", "-0", "+1", " 1", "1 ", "1.0", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "18446744073709551616", "0x10", ""}
	cmds = cmds[:0]
	for _, u := range units {
		cmds = append(cmds, []string{"GEODIST", "parse", "m:5,0", "m:5,1", u})
	}
	for _, n := range ints {
		cmds = append(cmds, []string{"GEOSEARCH", "parse", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m", "COUNT", n})
	}
	for _, f := range floats {
		cmds = append(cmds, []string{"GEOSEARCH", "parse", "FROMLONLAT", "5", "0", "BYRADIUS", f, "km"})
	}
	replies = mustPipeline(t, rc, cmds)
	d = newDiffs(t, "unit/COUNT/radius parsing", true)
	s1, _ := m.score("m:5,0")
	s2, _ := m.score("m:5,1")
	lon1, lat1 := Decode(s1)
	lon2, lat2 := Decode(s2)
	for i, cmd := range cmds {
		var want any
		switch {
		case i < len(units):
			if f, ok := ParseUnit([]byte(cmd[4])); ok {
				want = string(AppendDist(nil, Distance(lon1, lat1, lon2, lat2)/f))
			} else {
				want = resp.ReplyError("ERR unsupported unit provided. please use M, KM, FT, MI")
			}
		case i < len(units)+len(ints):
			n, ok := ParseInt([]byte(cmd[9]))
			switch {
			case !ok:
				want = resp.ReplyError("ERR value is not an integer or out of range")
			case n <= 0:
				want = resp.ReplyError("ERR COUNT must be > 0")
			default:
				names := []any{}
				for _, h := range m.query(NewSearch(0, 0, Shape{Radius: 1, Unit: UnitM}), int(n), false, sortNone) {
					names = append(names, h.member)
				}
				want = names
			}
		default:
			r, ok := ParseFloat([]byte(cmd[6]))
			switch {
			case !ok:
				want = resp.ReplyError("ERR need numeric radius")
			case r < 0:
				want = resp.ReplyError("ERR radius cannot be negative")
			default:
				names := []any{}
				for _, h := range m.query(NewSearch(5, 0, Shape{Radius: r, Unit: UnitKM}), 0, false, sortNone) {
					names = append(names, h.member)
				}
				want = names
			}
		}
		d.check(fmt.Sprintf("%q", cmd), text(replies[i]), text(want))
	}
	d.done()
}
