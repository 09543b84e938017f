package cluster

import (
	"math"
	"strconv"
	"strings"

	"geoshard/geo"
	"geoshard/shard"
)

// parser reads an internal command's words; the first bad one is kept.
type parser struct {
	args [][]byte
	bad  string
	// older is the sender's table version when older than the table the
	// command is served with (a read, readsOlder): only shards that table
	// holds whole may be read. 0: the same version.
	older int64
}

func (p *parser) str() string {
	if len(p.args) == 0 {
		p.fail("missing argument")
		return ""
	}
	s := string(p.args[0])
	p.args = p.args[1:]
	return s
}

func (p *parser) fail(msg string) {
	if p.bad == "" {
		p.bad = msg
	}
}

func (p *parser) int() int64 {
	s := p.str()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.fail("bad integer " + strconv.Quote(s))
	}
	return n
}

func (p *parser) float() float64 {
	s := p.str()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.fail("bad number " + strconv.Quote(s))
	}
	return f
}

// score reads a member's score: a NaN breaks the order of a shard's
// score tree (a NaN compares neither below nor above another score), and
// the member stored next to it was lost from ranges and counts.
func (p *parser) score() float64 {
	f := p.float()
	if math.IsNaN(f) {
		p.fail("NaN score")
	}
	return f
}

func (p *parser) key() shard.Key {
	db := p.int()
	return shard.Key{DB: int(db), Name: p.str()}
}

// shard reads a shard id this node must serve.
func (p *parser) shard(t *Table) shard.ID {
	return p.checkShard(t, p.int())
}

// checkShard checks shard id n as p.shard does.
func (p *parser) checkShard(t *Table, n int64) shard.ID {
	if n < 0 || n >= int64(len(t.local)) {
		p.fail("bad shard " + itoa(n))
		return 0
	}
	switch {
	case !t.Holds(shard.ID(n)):
		p.fail(errNotOwnerPrefix + " shard " + itoa(n))
	case p.older != 0 && !t.Whole(shard.ID(n)):
		p.fail(versionRefusal(t.Version, p.older)) // the sender refreshes (admit)
	}
	return shard.ID(n)
}

func (p *parser) rest(t *Table) []shard.ID {
	var ids []shard.ID
	for len(p.args) > 0 {
		ids = append(ids, p.shard(t))
	}
	return ids
}

func (p *parser) search() *geo.Search {
	lon, lat := p.float(), p.float()
	kind := p.str()
	sh := geo.Shape{Box: kind == "1", Radius: p.float(), Width: p.float(), Height: p.float(), Unit: p.float()}
	if kind == "2" {
		sh.Polygon = p.polygon()
	}
	// A negative size would never end the plan's step estimate
	// (geo.estimateSteps doubles it until it passes the Earth's size): a
	// peer's bad word must not spin a bus goroutine forever. Clients'
	// shapes are never negative (Redis refuses them); +inf is one of them.
	if sh.Radius < 0 || sh.Width < 0 || sh.Height < 0 || sh.Unit < 0 {
		p.fail("bad search")
		return nil
	}
	if p.bad != "" || !geo.Valid(lon, lat) && sh.Polygon == nil {
		p.fail("bad search")
		return nil
	}
	return geo.NewSearch(lon, lat, sh)
}

// polygon reads a vertex count and the vertices of a BYPOLYGON search.
func (p *parser) polygon() *geo.Polygon {
	n := p.int()
	if n < 3 || n > int64(len(p.args))/2 {
		p.fail("bad polygon")
		return nil
	}
	coords := make([]float64, 2*n)
	for i := range coords {
		coords[i] = p.float()
	}
	for i := 0; i < len(coords); i += 2 {
		if !geo.Valid(coords[i], coords[i+1]) {
			p.fail("bad polygon")
			return nil
		}
	}
	return geo.NewPolygon(coords)
}

// ok reports whether every word parsed, else answers the error.
func (p *parser) ok(w Replier) bool {
	if p.bad == "" {
		return true
	}
	if strings.HasPrefix(p.bad, errNotOwnerPrefix) || strings.HasPrefix(p.bad, errVersionPrefix) {
		w.Error(p.bad)
	} else {
		w.Error("ERR internal command: " + p.bad)
	}
	return false
}
