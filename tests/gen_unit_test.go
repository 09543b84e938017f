package tests

import (
	"slices"
	"strings"
	"testing"
)

// TestGeneratorCoverage checks that one default-length stream really uses
// every command, option and edge value the differential is meant to cover,
// and that the same seed gives the same stream.
func TestGeneratorCoverage(t *testing.T) {
	const n = 3000
	words := map[string]int{}
	g := newCmdGen(1)
	var first [][]string
	for i := 0; i < n; i++ {
		args := g.next()
		if i < 100 {
			first = append(first, slices.Clone(args))
		}
		words["cmd:"+strings.ToUpper(args[0])]++
		for _, a := range args[1:] {
			words[strings.ToUpper(a)]++
			words["raw:"+a]++
		}
	}
	want := []string{
		"cmd:GEOADD", "cmd:GEOPOS", "cmd:GEODIST", "cmd:GEOHASH", "cmd:GEOSEARCH", "cmd:GEOSEARCHSTORE",
		"cmd:GEORADIUS", "cmd:GEORADIUS_RO", "cmd:GEORADIUSBYMEMBER", "cmd:GEORADIUSBYMEMBER_RO",
		"cmd:ZADD", "cmd:ZREM", "cmd:ZSCORE", "cmd:ZMSCORE", "cmd:ZCARD", "cmd:ZRANGE", "cmd:ZRANK",
		"cmd:DEL", "cmd:UNLINK", "cmd:EXISTS", "cmd:TYPE", "cmd:RENAME", "cmd:EXPIRE", "cmd:PEXPIRE",
		"cmd:TTL", "cmd:PTTL", "cmd:PERSIST", "cmd:KEYS", "cmd:DBSIZE", "cmd:SELECT", "cmd:SET", "cmd:GET",
		"cmd:PING", "cmd:ECHO", "cmd:GEOFOO",
		"NX", "XX", "CH", "GT", "LT", "STORE", "STOREDIST", "ANY", "WITHCOORD", "WITHDIST", "WITHHASH",
		"FROMMEMBER", "FROMLONLAT", "BYRADIUS", "BYBOX", "ASC", "DESC", "COUNT",
		"BYSCORE", "REV", "LIMIT", "WITHSCORES",
		"M", "KM", "FT", "MI", "raw:Km", "raw:mi",
		"raw:inf", "raw:0", "raw:-0", "raw:nan", "raw:1e400", "raw:", "raw:0x10", "raw:50000",
		"raw:180", "raw:-180", "raw:85.05112878", "raw:-85.05112878", "raw:a\x00b", "raw:a\r\nb",
		"raw:-1", "raw: 1", "raw:5 ", "raw:--1", "raw:1e-400",
	}
	var missing []string
	for _, w := range want {
		if words[w] == 0 {
			missing = append(missing, w)
		}
	}
	bad := 0
	for _, u := range badUnits {
		bad += words["raw:"+u]
	}
	if bad == 0 {
		missing = append(missing, "any bad unit")
	}
	if len(missing) > 0 {
		t.Errorf("a %d-command stream never uses %q", n, missing)
	}

	g2 := newCmdGen(1)
	for i, want := range first {
		if got := g2.next(); !slices.Equal(got, want) {
			t.Fatalf("seed 1 command %d: %q then %q", i, want, got)
		}
	}
}
