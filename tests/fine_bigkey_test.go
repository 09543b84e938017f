package tests

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
)

// TestDifferentialFineMapBigKeys compares, byte for byte with Redis, every
// search form over keys that the fine map's router searches by its
// per-shard member counts or reads from the owner table (issue 11): a
// 6,000-member key spread over the map's areas and the rest of the world,
// and a 700-member one, for radii of 2 to 5,000 km and boxes up to the
// whole world, before and after a round of moves across borders and
// removals.
func TestDifferentialFineMapBigKeys(t *testing.T) {
	ref := startRedis(t)
	mapPath := filepath.Join(t.TempDir(), "fine.geojson")
	if err := writeFineMap(mapPath, dataAreas); err != nil {
		t.Fatal(err)
	}
	fine := startGeoshardPlain(t, "geoshard-fine-big", "--regions", mapPath, "--position-ttl", "0")
	conns := []*rawConn{dialRaw(t, ref), dialRaw(t, fine)}
	rng := rand.New(rand.NewPCG(61, 6))
	send := func(cmds [][]string) {
		t.Helper()
		var replies [2][][]byte
		for i, rc := range conns {
			var err error
			if replies[i], err = rc.pipeline(cmds); err != nil {
				t.Fatal(err)
			}
		}
		for j := range cmds {
			if !bytes.Equal(replies[1][j], replies[0][j]) {
				t.Fatalf("%q: %q, Redis %q", cmds[j][:2], replies[1][j], replies[0][j])
			}
		}
	}
	for key, n := range map[string]int{"big": 6000, "mid": 700} {
		var cmds [][]string
		for i := 0; i < n; i += 500 {
			cmd := []string{"GEOADD", key}
			for j := i; j < min(i+500, n); j++ {
				lon, lat := bigKeyPoint(rng, j)
				cmd = append(cmd, ftoa(lon), ftoa(lat), key+":"+strconv.Itoa(j))
			}
			cmds = append(cmds, cmd)
		}
		send(cmds)
	}
	compare := func(phase string) {
		t.Helper()
		bad := 0
		for _, q := range bigKeyQueries(rng) {
			want := conns[0].mustDo(t, q...)
			got := conns[1].mustDo(t, q...)
			if !bytes.Equal(got, want) {
				bad++
				t.Errorf("%s: %q: %d bytes, Redis %d (first difference at %d)", phase, q, len(got), len(want), firstDiff(got, want))
				if bad >= 5 {
					t.FailNow()
				}
			}
		}
	}
	compare("loaded")
	// Members cross borders (a few metres to a few hundred kilometres) and
	// some go.
	var moves [][]string
	for i := range 3000 {
		key, n := "big", 6000
		if i%5 == 0 {
			key, n = "mid", 700
		}
		j := rng.IntN(n)
		if i%7 == 0 {
			moves = append(moves, []string{"ZREM", key, key + ":" + strconv.Itoa(j)})
			continue
		}
		lon, lat := bigKeyPoint(rng, j+i)
		moves = append(moves, []string{"GEOADD", key, ftoa(lon), ftoa(lat), key + ":" + strconv.Itoa(j)})
	}
	send(moves)
	compare("after moves")
}

// bigKeyPoint is a position in one of the fine map's data areas (nine in
// ten) or anywhere on Earth.
func bigKeyPoint(rng *rand.Rand, i int) (lon, lat float64) {
	if i%10 == 9 {
		return -180 + rng.Float64()*360, -85 + rng.Float64()*170
	}
	a := dataAreas[i%len(dataAreas)]
	lon = a.lon + (rng.Float64()*2-1)*a.halfLon
	lat = a.lat + (rng.Float64()*2-1)*a.halfLat
	if lon > 180 {
		lon -= 360
	}
	return lon, min(max(lat, -85.05), 85.05)
}

// bigKeyQueries are the search forms of target 1 around the data areas'
// centres and a few random points.
func bigKeyQueries(rng *rand.Rand) [][]string {
	var centres [][2]float64
	for _, a := range dataAreas {
		centres = append(centres, [2]float64{a.lon, a.lat})
	}
	for range 3 {
		centres = append(centres, [2]float64{-180 + rng.Float64()*360, -80 + rng.Float64()*160})
	}
	shapes := [][]string{
		{"BYRADIUS", "2", "km"}, {"BYRADIUS", "50", "km"}, {"BYRADIUS", "500", "km"},
		{"BYRADIUS", "5000", "km"}, {"BYBOX", "40000", "20000", "km"}, {"BYBOX", "300", "200", "km"},
	}
	opts := [][]string{
		{"ASC"}, {"DESC", "WITHDIST"}, {"ASC", "COUNT", "7", "WITHCOORD"},
		{"COUNT", "5", "ANY", "WITHHASH"}, {}, {"DESC", "COUNT", "3", "WITHDIST", "WITHCOORD"},
	}
	var out [][]string
	for _, key := range []string{"big", "mid"} {
		for ci, c := range centres {
			for si, shape := range shapes {
				opt := opts[(ci+si)%len(opts)]
				q := append([]string{"GEOSEARCH", key, "FROMLONLAT", ftoa(c[0]), ftoa(c[1])}, shape...)
				out = append(out, append(q, opt...))
			}
			if ci%3 == 0 {
				out = append(out,
					[]string{"GEORADIUS", key, ftoa(c[0]), ftoa(c[1]), "500", "km", "WITHDIST", "ASC"},
					[]string{"GEOSEARCH", key, "FROMMEMBER", key + ":" + strconv.Itoa(ci), "BYRADIUS", "5000", "km", "ASC", "COUNT", "20"},
					[]string{"GEORADIUSBYMEMBER", key, key + ":" + strconv.Itoa(ci+1), "2000", "km", "DESC", "COUNT", "10", "WITHDIST"})
			}
		}
	}
	return out
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
