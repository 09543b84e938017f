package tests

import (
	"fmt"
	"testing"
)

// TestSpecErrors runs every error row of GEO-SPEC.md (§1, §2, §6.1–§6.5,
// §9) against redis-server and geoshard, expecting the exact reply bytes.
// The redis side keeps the table honest: a row that redis itself fails is a
// wrong row, not a geoshard bug.
func TestSpecErrors(t *testing.T) {
	cases := specErrorCases()
	t.Run("redis", func(t *testing.T) {
		runSpecCases(t, startRedis(t), cases)
	})
	t.Run("geoshard", func(t *testing.T) {
		runSpecCases(t, startGeoshard(t, "geoshard"), cases)
	})
}

func specErrorCases() []specCase {
	var cs []specCase
	add := func(name string, steps ...step) { cs = append(cs, specCase{name, steps}) }

	// §1.1 doubles: strtod semantics.
	for _, s := range []string{" 5", "5 ", "", "nan", "NaN", "-nan", "1e400", "-1e400", "1e-400", "abc", "1_0", "0x", "5\x00", "\t5", "1,5"} {
		add(fmt.Sprintf("1.1 lon %q not a float", s),
			expect(notFloat, "GEOADD", "k", s, "1", "m"),
			expect(intR(0), "EXISTS", "k"))
		add(fmt.Sprintf("1.1 lat %q not a float", s), expect(notFloat, "GEOADD", "k", "1", s, "m"))
		add(fmt.Sprintf("1.1 GEORADIUS lon %q", s), addSicily, expect(notFloat, "GEORADIUS", "Sicily", s, "37", "1", "km"))
		add(fmt.Sprintf("1.1 FROMLONLAT lat %q", s), addSicily,
			expect(notFloat, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", s, "BYRADIUS", "1", "km"))
		add(fmt.Sprintf("1.1 radius %q", s), addSicily, expect(radiusErr, "GEORADIUS", "Sicily", "15", "37", s, "km"))
		add(fmt.Sprintf("1.1 BYRADIUS %q", s), addSicily,
			expect(radiusErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", s, "km"))
		add(fmt.Sprintf("1.1 width %q", s), addSicily,
			expect(errR("ERR need numeric width"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", s, "1", "km"))
		add(fmt.Sprintf("1.1 height %q", s), addSicily,
			expect(errR("ERR need numeric height"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", s, "km"))
	}
	// Accepted spellings: each lands in the same cell as its plain form.
	for _, c := range [][2]string{{"+5", "5"}, {".5", "0.5"}, {"5.", "5"}, {"1e1", "10"}, {"0x10", "16"},
		{"0x1p4", "16"}, {"0X1P4", "16"}, {"-0", "0"}, {"1e-310", "0"}, {"00012", "12"}, {"-.5e1", "-5"}} {
		steps := []step{
			expect(intR(2), "GEOADD", "k", c[0], c[0], "odd", c[1], c[1], "plain"),
			expect(bulk("0.0000"), "GEODIST", "k", "odd", "plain"),
			expect(intR(1), "ZADD", "z", c[0], "m"),
			expect(intR(1), "GEOADD", "r", "1", "1", "m"),
		}
		if c[1][0] != '-' {
			steps = append(steps, expect(emptyArr, "GEORADIUS", "r", "50", "50", c[0], "m"))
		}
		add(fmt.Sprintf("1.1 accepts %q", c[0]), steps...)
	}

	// §1.2 COUNT.
	for _, s := range []string{"01", "-0", "+1", " 1", "1 ", "abc", "1.0", "", "9223372036854775808", "0x10", "1e3"} {
		add(fmt.Sprintf("1.2 COUNT %q", s), addSicily,
			expect(notInt, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", s))
		add(fmt.Sprintf("1.2 GEORADIUS COUNT %q", s), addSicily,
			expect(notInt, "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", s))
	}
	for _, s := range []string{"0", "-1", "-9223372036854775808"} {
		add(fmt.Sprintf("1.2 COUNT %s must be > 0", s), addSicily,
			expect(countErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", s),
			expect(countErr, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "COUNT", s, "ANY"))
	}
	add("1.2 COUNT max int64", addSicily,
		expect(bulks("Catania", "Palermo"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "9223372036854775807"))

	// §1.3 units.
	for _, u := range []string{"m", "km", "ft", "mi", "M", "KM", "Km", "kM", "FT", "Ft", "MI", "mI"} {
		add("1.3 unit "+u, addSicily,
			expect(intR(2), "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1e9", "1e9", u),
			expect(intR(1), "GEORADIUS", "Sicily", "15.087269", "37.502669", "1", u, "STORE", "d"))
	}
	for _, u := range []string{"meters", "", "k", "mm", "kms", "miles", "yd", "m ", " km", "\x00", "metre"} {
		add(fmt.Sprintf("1.3 bad unit %q", u), addSicily,
			expect(badUnit, "GEODIST", "Sicily", "Palermo", "Catania", u),
			expect(badUnit, "GEORADIUS", "Sicily", "15", "37", "200", u),
			expect(badUnit, "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", u),
			expect(badUnit, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", u),
			expect(badUnit, "GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", u))
	}

	// §2 coordinate limits; the message prints the parsed values with %f.
	for _, c := range [][3]string{
		{"500", "1", "500.000000,1.000000"},
		{"0", "85.05112879", "0.000000,85.051129"},
		{"0", "-85.05112879", "0.000000,-85.051129"},
		{"inf", "0", "inf,0.000000"},
		{"-inf", "0", "-inf,0.000000"},
		{"0", "infinity", "0.000000,inf"},
		{"0", "-inf", "0.000000,-inf"},
		{"-180.0000001", "0", "-180.000000,0.000000"},
		{"180.0000001", "0", "180.000000,0.000000"},
		{"0", "90", "0.000000,90.000000"},
		{"0", "-90", "0.000000,-90.000000"},
		{"-1e-5", "-85.0511288", "-0.000010,-85.051129"},
		{"1e300", "0", fmt.Sprintf("%f,0.000000", 1e300)},
		{"-1e300", "1e300", fmt.Sprintf("%f,%f", -1e300, 1e300)},
		{"181", "-0", "181.000000,-0.000000"},
		{"1e-310", "91", "0.000000,91.000000"},
		{"-1e-310", "91", "-0.000000,91.000000"},
		{"0x1p10", "0", "1024.000000,0.000000"},
	} {
		add("2 pair "+c[0]+" "+c[1],
			expect(pairErr(c[2]), "GEOADD", "k", c[0], c[1], "m"),
			addSicily,
			expect(pairErr(c[2]), "GEORADIUS", "Sicily", c[0], c[1], "10", "km"),
			expect(pairErr(c[2]), "GEORADIUS_RO", "nokey", c[0], c[1], "10", "km"),
			expect(pairErr(c[2]), "GEOSEARCH", "Sicily", "FROMLONLAT", c[0], c[1], "BYRADIUS", "10", "km"),
			expect(pairErr(c[2]), "GEOSEARCHSTORE", "d", "Sicily", "BYBOX", "1", "1", "m", "FROMLONLAT", c[0], c[1]))
	}
	add("2 bounds are inclusive",
		expect(intR(4), "GEOADD", "k", "180", "85.05112878", "a", "-180", "-85.05112878", "b", "180", "-85.05112878", "c", "-180", "85.05112878", "d"))

	// §6.1 GEOADD.
	add("6.1 GT is not an option", expect(syntaxErr, "GEOADD", "k", "GT", "1", "1", "x"))
	add("6.1 GT read as a coordinate", expect(notFloat, "GEOADD", "k", "GT", "1", "1"))
	add("6.1 CH with a pair", expect(syntaxErr, "GEOADD", "k", "CH", "1", "1"))
	add("6.1 arity", expect(arity("geoadd"), "GEOADD", "k", "1", "1"))
	add("6.1 arity lower-cased", expect(arity("geoadd"), "GeoAdd", "k", "1", "1"))
	add("6.1 NX and XX", expect(syntaxErr, "GEOADD", "k", "NX", "XX", "1", "1", "m"))
	add("6.1 xx nx any case", expect(syntaxErr, "GEOADD", "k", "xx", "Ch", "nX", "1", "1", "m"))
	add("6.1 INCR is not an option", expect(syntaxErr, "GEOADD", "k", "INCR", "1", "1", "m"))
	add("6.1 LT with a pair", expect(notFloat, "GEOADD", "k", "LT", "1", "1"))
	add("6.1 not a multiple of 3", expect(syntaxErr, "GEOADD", "k", "1", "1", "a", "2"))
	add("6.1 first bad triple adds nothing",
		expect(pairErr("500.000000,1.000000"), "GEOADD", "k", "1", "1", "ok", "500", "1", "bad"),
		expect(intR(0), "EXISTS", "k"))
	add("6.1 bad coordinates checked before type",
		setStr,
		expect(pairErr("500.000000,1.000000"), "GEOADD", "str", "500", "1", "m"),
		expect(notFloat, "GEOADD", "str", "x", "1", "m"),
		expect(syntaxErr, "GEOADD", "str", "NX", "XX", "1", "1", "m"),
		expect(wrongType, "GEOADD", "str", "1", "1", "m"))
	add("6.1 NX XX CH replies",
		expect(intR(2), "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
		expect(intR(0), "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
		expect(intR(1), "GEOADD", "Sicily", "NX", "13", "38", "Palermo", "14", "37", "NewOne"),
		expect(intR(0), "GEOADD", "Sicily", "XX", "14.5", "37.5", "NewOne", "14", "37", "NotThere"),
		expect(intR(1), "GEOADD", "Sicily", "XX", "CH", "14", "37", "NewOne"),
		expect(intR(0), "GEOADD", "Sicily", "CH", "13.361390", "38.115556", "Palermo"),
		expect(arr(nullArr), "GEOPOS", "Sicily", "NotThere"),
		expect(intR(3), "ZCARD", "Sicily"))
	add("6.1 repeated member counts once, last wins",
		expect(intR(1), "GEOADD", "k", "1", "1", "a", "2", "2", "a"),
		expect(intR(1), "GEOADD", "k", "2", "2", "b"),
		expect(bulk("0.0000"), "GEODIST", "k", "a", "b"))
	add("6.1 keeps TTL",
		expect(intR(1), "GEOADD", "k", "1", "1", "a"),
		expect(intR(1), "EXPIRE", "k", "100000"),
		expect(intR(1), "GEOADD", "k", "2", "2", "b"),
		expect(intR(100000), "TTL", "k"))

	// §6.2 GEOPOS, §6.4 GEOHASH.
	add("6.2 GEOPOS wrong type", setStr, expect(wrongType, "GEOPOS", "str", "a"), expect(wrongType, "GEOPOS", "str"))
	add("6.2 GEOPOS missing key", expect(arr(nullArr, nullArr), "GEOPOS", "nokey", "a", "b"))
	add("6.2 GEOPOS no members", addSicily, expect(emptyArr, "GEOPOS", "Sicily"), expect(emptyArr, "GEOPOS", "nokey"))
	add("6.2 GEOPOS arity", expect(arity("geopos"), "GEOPOS"))
	add("6.2 GEOPOS replies", addSicily,
		expect(arr(bulks("13.36138933897018433", "38.11555639549629859"), bulks("15.08726745843887329", "37.50266842333162032"), nullArr),
			"GEOPOS", "Sicily", "Palermo", "Catania", "NonExisting"))
	add("6.2 GEOPOS RESP3", addSicily, do("HELLO", "3"),
		expect(arr(arr(dbl("13.36138933897018433"), dbl("38.11555639549629859")), null3), "GEOPOS", "Sicily", "Palermo", "x"))
	add("6.4 GEOHASH wrong type", setStr, expect(wrongType, "GEOHASH", "str", "a"))
	add("6.4 GEOHASH missing key", expect(arr(nullBulk, nullBulk), "GEOHASH", "nokey", "a", "b"))
	add("6.4 GEOHASH no members", addSicily, expect(emptyArr, "GEOHASH", "Sicily"))
	add("6.4 GEOHASH arity", expect(arity("geohash"), "geohash"))
	add("6.4 GEOHASH replies",
		expect(intR(5), "GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
			"-5.6", "42.6", "x", "180", "0", "e", "0", "85.05112878", "top"),
		expect(bulks("sqc8b49rny0", "sqdtr74hyu0", "ezs42e44yx0", "80000000000", "up05b5048p0"),
			"GEOHASH", "k", "Palermo", "Catania", "x", "e", "top"),
		do("HELLO", "3"),
		expect(arr(bulk("sqc8b49rny0"), null3), "GEOHASH", "k", "Palermo", "nope"))

	// §6.3 GEODIST.
	add("6.3 more than 5 words", addSicily, expect(syntaxErr, "GEODIST", "Sicily", "Palermo", "Catania", "km", "x"))
	add("6.3 6 words on a missing key", expect(syntaxErr, "GEODIST", "nokey", "a", "b", "km", "x"))
	add("6.3 bad unit before missing key", expect(badUnit, "GEODIST", "nokey", "a", "b", "parsec"))
	add("6.3 bad unit before wrong type", setStr, expect(badUnit, "GEODIST", "str", "a", "b", "parsec"))
	add("6.3 wrong type", setStr, expect(wrongType, "GEODIST", "str", "a", "b"), expect(wrongType, "GEODIST", "str", "a", "b", "km"))
	add("6.3 missing key", expect(nullBulk, "GEODIST", "nokey", "a", "b"), expect(nullBulk, "GEODIST", "nokey", "a", "b", "mi"))
	add("6.3 missing member", addSicily, expect(nullBulk, "GEODIST", "Sicily", "Palermo", "x"), expect(nullBulk, "GEODIST", "Sicily", "x", "Palermo", "km"))
	add("6.3 null in RESP3", addSicily, do("HELLO", "3"), expect(null3, "GEODIST", "Sicily", "Palermo", "x"), expect(null3, "GEODIST", "nokey", "a", "b"))
	add("6.3 arity", expect(arity("geodist"), "GEODIST", "k", "a"))
	add("6.3 replies", addSicily,
		expect(bulk("166274.1516"), "GEODIST", "Sicily", "Palermo", "Catania"),
		expect(bulk("166.2742"), "GEODIST", "Sicily", "Palermo", "Catania", "km"),
		expect(bulk("103.3182"), "GEODIST", "Sicily", "Palermo", "Catania", "MI"),
		expect(bulk("545518.8700"), "GEODIST", "Sicily", "Palermo", "Catania", "ft"),
		expect(bulk("0.0000"), "GEODIST", "Sicily", "Palermo", "Palermo"))

	// §6.5 wrong type comes before every other check.
	add("6.5 GEORADIUS wrong type first", setStr, expect(wrongType, "GEORADIUS", "str", "500", "1", "abc", "parsec", "BOGUS"))
	add("6.5 GEORADIUS_RO wrong type first", setStr, expect(wrongType, "GEORADIUS_RO", "str", "x", "1", "-1", "km", "STORE", "d"))
	add("6.5 GEORADIUSBYMEMBER wrong type first", setStr, expect(wrongType, "GEORADIUSBYMEMBER", "str", "m", "abc", "parsec"))
	add("6.5 GEOSEARCH wrong type first", setStr, expect(wrongType, "GEOSEARCH", "str", "FROMLONLAT", "500", "1", "BYRADIUS", "-1", "km"))
	add("6.5 GEOSEARCHSTORE wrong type first", setStr, expect(wrongType, "GEOSEARCHSTORE", "d", "str", "BOGUS", "1", "2", "3", "4"))
	add("6.5 destination never type-checked", addSicily, do("SET", "d", "v"),
		expect(intR(2), "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d"),
		expect("+zset\r\n", "TYPE", "d"),
		do("SET", "d2", "v"),
		expect(intR(1), "GEOSEARCHSTORE", "d2", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "m"),
		expect("+zset\r\n", "TYPE", "d2"))

	// §6.5 GEORADIUS radius and unit.
	add("6.5 GEORADIUS negative radius", addSicily, expect(negRadius, "GEORADIUS", "Sicily", "15", "37", "-1", "km"))
	add("6.5 GEORADIUS -inf radius", addSicily, expect(negRadius, "GEORADIUS", "Sicily", "15", "37", "-inf", "km"))
	add("6.5 GEORADIUS -0 0 inf accepted", addSicily,
		expect(emptyArr, "GEORADIUS", "Sicily", "15", "37", "-0", "km"),
		expect(emptyArr, "GEORADIUS", "Sicily", "15", "37", "0", "km"),
		expect(bulks("Catania", "Palermo"), "GEORADIUS", "Sicily", "15", "37", "inf", "km", "ASC"))
	add("6.5 GEORADIUS pair before radius", addSicily, expect(pairErr("500.000000,37.000000"), "GEORADIUS", "Sicily", "500", "37", "abc", "parsec"))
	add("6.5 GEORADIUS radius before unit", addSicily, expect(radiusErr, "GEORADIUS", "Sicily", "15", "37", "abc", "parsec"))
	add("6.5 GEORADIUS on missing key still validated", expect(radiusErr, "GEORADIUS", "nokey", "15", "37", "abc", "km"),
		expect(badUnit, "GEORADIUS_RO", "nokey", "15", "37", "1", "parsec"),
		expect(syntaxErr, "GEORADIUS", "nokey", "15", "37", "1", "km", "BOGUS"))
	add("6.5 GEORADIUSBYMEMBER member before radius", addSicily,
		expect(noMember, "GEORADIUSBYMEMBER", "Sicily", "nosuch", "abc", "parsec"),
		expect(noMember, "GEORADIUSBYMEMBER_RO", "Sicily", "nosuch", "-1", "km"))
	add("6.5 GEORADIUSBYMEMBER radius errors", addSicily,
		expect(radiusErr, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "abc", "km"),
		expect(negRadius, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "-1", "km"),
		expect(badUnit, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "parsec"))
	add("6.5 GEORADIUSBYMEMBER missing key skips radius and unit",
		expect(emptyArr, "GEORADIUSBYMEMBER", "nokey", "m", "abc", "badunit"),
		expect(emptyArr, "GEORADIUSBYMEMBER_RO", "nokey", "m", "-1", "x"))

	// §6.5 the option table.
	add("6.5 WITH* repeats harmless", addSicily,
		expect(arr(arr(bulk("Catania"), bulk("56.4413")), arr(bulk("Palermo"), bulk("190.4424"))),
			"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "withdist", "ASC", "WITHDIST"))
	add("6.5 WITH* reply order is dist hash coord", addSicily,
		expect(arr(
			arr(bulk("Palermo"), bulk("190.4424"), intR(3479099956230698), bulks("13.36138933897018433", "38.11555639549629859")),
			arr(bulk("Catania"), bulk("56.4413"), intR(3479447370796909), bulks("15.08726745843887329", "37.50266842333162032"))),
			"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD", "WITHHASH", "WITHDIST"))
	add("6.5 ASC DESC last wins", addSicily,
		expect(bulks("Palermo", "Catania"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "DESC"),
		expect(bulks("Catania", "Palermo"), "GEOSEARCH", "Sicily", "DESC", "FROMLONLAT", "15", "37", "asc", "BYRADIUS", "200", "km"))
	add("6.5 COUNT last wins", addSicily,
		expect(bulks("Catania"), "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "5", "COUNT", "1"),
		expect(countErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "5", "COUNT", "0"))
	add("6.5 STORE STOREDIST last wins", addSicily,
		expect(intR(2), "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "a", "STOREDIST", "b"),
		expect(intR(0), "EXISTS", "a"),
		expect(bulk("56.441257870158204"), "ZSCORE", "b", "Catania"),
		expect(intR(2), "GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "a", "STORE", "c"),
		expect(intR(0), "EXISTS", "a"),
		expect(bulk("3479447370796909"), "ZSCORE", "c", "Catania"))
	add("6.5 STORE without key", addSicily, expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE"))
	add("6.5 STORE on _RO", addSicily,
		expect(syntaxErr, "GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d"),
		expect(syntaxErr, "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "STOREDIST", "d"))
	add("6.5 STORE on GEOSEARCH", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "d"),
		expect(syntaxErr, "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "e"))
	add("6.5 STOREDIST on GEOSEARCH", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST"))
	add("6.5 STOREDIST with a key on GEOSEARCHSTORE", addSicily,
		expect(syntaxErr, "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST", "e"))
	add("6.5 GEOSEARCHSTORE STOREDIST", addSicily,
		expect(intR(2), "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "storedist"),
		expect(bulks("Catania", "56.441257870158204", "Palermo", "190.44242984775784"), "ZRANGE", "d", "0", "-1", "WITHSCORES"))
	add("6.5 GEORADIUS options on GEOSEARCH", addSicily,
		expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "FROMLONLAT", "15", "37"),
		expect(syntaxErr, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "BYBOX", "1", "1", "km"))
	add("6.5 FROMMEMBER then FROMLONLAT", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km"))
	add("6.5 FROMLONLAT then FROMMEMBER", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"))
	add("6.5 BYRADIUS and BYBOX", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"),
		expect(syntaxErr, "GEOSEARCH", "Sicily", "BYBOX", "1", "1", "km", "BYRADIUS", "1", "km", "FROMLONLAT", "15", "37"))
	add("6.5 repeated FROM and BY allowed, last wins", addSicily,
		expect(bulks("Palermo"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMLONLAT", "13.361389", "38.115556",
			"BYRADIUS", "500", "km", "BYRADIUS", "1", "km"),
		expect(bulks("Catania"), "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMMEMBER", "Catania",
			"BYBOX", "1000", "1000", "km", "BYBOX", "1", "1", "km"))
	add("6.5 FROMMEMBER missing member fails at once", addSicily,
		expect(noMember, "GEOSEARCH", "Sicily", "FROMMEMBER", "nosuch", "BOGUS", "x", "y", "z"),
		expect(noMember, "GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "-1", "km"))
	add("6.5 FROMMEMBER on missing key not looked up",
		expect(emptyArr, "GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"),
		expect(syntaxErr, "GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "BOGUS", "x", "y", "z"))
	add("6.5 FROMLONLAT validated at once", addSicily,
		expect(pairErr("500.000000,1.000000"), "GEOSEARCH", "Sicily", "FROMLONLAT", "500", "1", "BOGUS", "x"),
		expect(syntaxErr, "GEOSEARCH", "Sicily", "BOGUS", "FROMLONLAT", "500", "1", "x"))
	add("6.5 BYBOX errors", addSicily,
		expect(negBox, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"),
		expect(negBox, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "-1", "km"),
		expect(negBox, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "-inf", "km"),
		expect(errR("ERR need numeric width"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "w", "-1", "km"),
		expect(badUnit, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "parsec"))
	add("6.5 BYRADIUS errors", addSicily,
		expect(negRadius, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"),
		expect(radiusErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "r", "parsec"),
		expect(badUnit, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "parsec"))
	add("6.5 unknown option", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHFOO"),
		expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "BYPOLYGON"),
		expect(syntaxErr, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "ASCENDING"))
	add("6.5 keyword without its words", addSicily,
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200"),
		expect(syntaxErr, "GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "FROMLONLAT", "15"),
		expect(syntaxErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1"),
		expect(syntaxErr, "GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "FROMLONLAT", "15", "37", "FROMMEMBER"),
		expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT"),
		expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "ASC", "COUNT"),
		expect(syntaxErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST"))
	add("6.5 STORE with WITH*", addSicily,
		expect(storeWith, "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d", "WITHDIST"),
		expect(storeWith, "GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHHASH", "STOREDIST", "d"),
		expect(storeWith, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "WITHCOORD", "STORE", "d"),
		expect(intR(0), "EXISTS", "d"))
	add("6.5 GEOSEARCHSTORE with WITH*", addSicily,
		expect(gssWith, "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"),
		expect(gssWith, "GEOSEARCHSTORE", "d", "Sicily", "WITHCOORD", "WITHDIST", "WITHDIST", "WITHDIST", "ANY"),
		expect(intR(0), "EXISTS", "d"))
	add("6.5 missing FROM names the command as typed", addSicily,
		expect(fromErr("GEOSEARCH"), "GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "ASC", "WITHDIST"),
		expect(fromErr("GeoSearch"), "GeoSearch", "Sicily", "BYRADIUS", "200", "km", "ASC", "WITHDIST"),
		expect(fromErr("geosearchstore"), "geosearchstore", "d", "Sicily", "BYRADIUS", "200", "km", "ASC", "DESC"),
		expect(fromErr("GEOSEARCH"), "GEOSEARCH", "Sicily", "WITHDIST", "ASC", "DESC", "ANY", "WITHHASH"))
	add("6.5 missing BY names the command as typed", addSicily,
		expect(byErr("GEOSEARCH"), "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "ASC", "DESC"),
		expect(byErr("GEOSEARCH"), "GEOSEARCH", "Sicily", "ASC", "FROMLONLAT", "15", "37", "WITHHASH"),
		expect(byErr("gEOsEARCH"), "gEOsEARCH", "Sicily", "FROMMEMBER", "Palermo", "ANY", "ANY", "ANY"),
		expect(byErr("GEOSEARCHSTORE"), "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "ASC", "DESC"))
	add("6.5 checks after the scan in order", addSicily,
		expect(storeWith, "GEORADIUS", "Sicily", "15", "37", "200", "km", "ANY", "WITHDIST", "STORE", "d"),
		expect(anyErr, "GEORADIUS", "Sicily", "15", "37", "200", "km", "ANY"),
		expect(anyErr, "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "ANY", "ASC"),
		expect(anyErr, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"),
		expect(anyErr, "GEOSEARCH", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"),
		expect(fromErr("GEOSEARCH"), "GEOSEARCH", "nokey", "ANY", "ANY", "ANY", "ANY", "ANY"))
	add("6.5 missing source key", addSicily,
		expect(emptyArr, "GEOSEARCH", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"),
		expect(emptyArr, "GEORADIUS_RO", "nokey", "15", "37", "200", "km"),
		do("SET", "d", "v"),
		expect(intR(0), "GEOSEARCHSTORE", "d", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
		expect(intR(0), "EXISTS", "d"),
		expect(intR(2), "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d"),
		expect(intR(0), "GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d"),
		expect(intR(0), "EXISTS", "d"),
		do("SET", "d", "v"),
		expect(intR(0), "GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "STOREDIST", "d"),
		expect(intR(0), "EXISTS", "d"))
	add("6.5 arity before everything",
		expect(arity("geosearch"), "GEOSEARCH", "key", "FROMMEMBER", "m"),
		expect(arity("geosearch"), "GEOSEARCH", "key", "FROMLONLAT", "1", "2", "BYRADIUS"),
		expect(arity("geosearchstore"), "GEOSEARCHSTORE", "d", "key", "FROMLONLAT", "1", "2", "BYRADIUS"),
		expect(arity("georadius"), "GEORADIUS", "key", "1", "2", "3"),
		expect(arity("georadius_ro"), "GEORADIUS_RO", "key", "1", "2", "3"),
		expect(arity("georadiusbymember"), "GEORADIUSBYMEMBER", "key", "m", "3"),
		expect(arity("georadiusbymember_ro"), "georadiusbymember_ro", "key", "m", "3"))

	// §6.7 stores replace the destination and drop its TTL; dst may be src.
	add("6.7 store drops TTL", addSicily,
		expect(intR(1), "GEOADD", "d", "0", "0", "x"),
		expect(intR(1), "EXPIRE", "d", "100000"),
		expect(intR(2), "GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
		expect(intR(-1), "TTL", "d"),
		expect(intR(2), "ZCARD", "d"))
	add("6.7 store into the source", addSicily,
		expect(intR(1), "GEORADIUS", "Sicily", "15", "37", "100", "km", "STOREDIST", "Sicily"),
		expect(bulks("Catania", "56.441257870158204"), "ZRANGE", "Sicily", "0", "-1", "WITHSCORES"))

	// §9 missing keys, wrong types, members.
	add("9 WRONGTYPE for every geo command", setStr,
		expect(wrongType, "GEOPOS", "str", "a"),
		expect(wrongType, "GEOHASH", "str", "a"),
		expect(wrongType, "GEODIST", "str", "a", "b"),
		expect(wrongType, "GEORADIUS", "str", "1", "1", "1", "km"),
		expect(wrongType, "GEORADIUS_RO", "str", "1", "1", "1", "km"),
		expect(wrongType, "GEORADIUSBYMEMBER", "str", "a", "1", "km"),
		expect(wrongType, "GEORADIUSBYMEMBER_RO", "str", "a", "1", "km"),
		expect(wrongType, "GEOSEARCH", "str", "FROMMEMBER", "a", "BYRADIUS", "1", "km"),
		expect(wrongType, "GEOSEARCHSTORE", "d", "str", "FROMMEMBER", "a", "BYRADIUS", "1", "km"),
		expect(wrongType, "GEOADD", "str", "1", "1", "a"),
		expect(wrongType, "ZSCORE", "str", "a"),
		expect(wrongType, "ZCARD", "str"),
		expect(wrongType, "ZRANGE", "str", "0", "-1"),
		expect(wrongType, "ZREM", "str", "a"),
		expect(wrongType, "ZRANK", "str", "a"),
		expect(wrongType, "ZMSCORE", "str", "a"),
		expect(wrongType, "ZADD", "str", "1", "a"),
		expect(intR(1), "GEOADD", "z", "1", "1", "a"),
		expect(wrongType, "GET", "z"))
	add("9 missing key", expect(arr(nullArr), "GEOPOS", "nokey", "a"),
		expect(arr(nullBulk), "GEOHASH", "nokey", "a"),
		expect(nullBulk, "GEODIST", "nokey", "a", "b"),
		expect(emptyArr, "GEORADIUS", "nokey", "1", "1", "1", "km", "WITHDIST"),
		expect(emptyArr, "GEORADIUSBYMEMBER", "nokey", "a", "1", "km"),
		expect(emptyArr, "GEOSEARCH", "nokey", "FROMMEMBER", "a", "BYBOX", "1", "1", "km"),
		expect(intR(0), "GEOSEARCHSTORE", "d", "nokey", "FROMMEMBER", "a", "BYBOX", "1", "1", "km", "STOREDIST"),
		expect(intR(0), "ZCARD", "nokey"),
		expect("+none\r\n", "TYPE", "nokey"))
	add("9 missing member", addSicily,
		expect(noMember, "GEORADIUSBYMEMBER", "Sicily", "nosuch", "1", "km"),
		expect(noMember, "GEORADIUSBYMEMBER_RO", "Sicily", "nosuch", "1", "km"),
		expect(noMember, "GEOSEARCH", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"),
		expect(noMember, "GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"),
		expect(noMember, "GEORADIUSBYMEMBER", "Sicily", "", "1", "km"))
	add("9 radius 0 and inf",
		expect(intR(4), "GEOADD", "tiny", "0", "0", "a", "0.000001", "0", "b", "0.00001", "0", "c", "0.0001", "0", "d"),
		expect(bulks("a", "b"), "GEOSEARCH", "tiny", "FROMMEMBER", "a", "BYRADIUS", "0", "m"),
		expect(emptyArr, "GEOSEARCH", "tiny", "FROMLONLAT", "0", "0", "BYRADIUS", "0", "m"),
		expect(arr(arr(bulk("a"), bulk("0.3300")), arr(bulk("b"), bulk("0.3300")), arr(bulk("c"), bulk("0.9060")), arr(bulk("d"), bulk("11.0392"))),
			"GEOSEARCH", "tiny", "FROMLONLAT", "0", "0", "BYRADIUS", "20", "m", "WITHDIST", "ASC"),
		expect(bulk("0.0000"), "GEODIST", "tiny", "a", "b"),
		expect(bulk("0.5967"), "GEODIST", "tiny", "a", "c"),
		expect(bulk("10.7400"), "GEODIST", "tiny", "a", "d"),
		expect(intR(6), "GEOADD", "world", "0", "0", "o", "179", "0", "far", "0", "80", "n", "0", "-80", "s", "100", "50", "x", "-100", "-50", "y"),
		expect(bulks("o", "n", "s", "x", "y", "far"), "GEOSEARCH", "world", "FROMLONLAT", "0", "0", "BYRADIUS", "inf", "km", "ASC"),
		expect(bulks("o", "n", "s", "x", "y", "far"), "GEOSEARCH", "world", "FROMLONLAT", "0", "0", "BYRADIUS", "50000", "km", "ASC"),
		expect(bulks("o", "n", "s", "x", "y"), "GEOSEARCH", "world", "FROMLONLAT", "0", "0", "BYRADIUS", "19000", "km", "ASC"),
		expect(intR(6), "GEOSEARCHSTORE", "d", "world", "FROMLONLAT", "0", "0", "BYBOX", "40000", "20000", "km"),
		expect(intR(6), "GEOSEARCHSTORE", "d", "world", "FROMLONLAT", "0", "0", "BYBOX", "100000", "100000", "km"))

	// §9.1 the same key through sorted-set commands.
	add("9.1 zset view", addSicily,
		expect("+zset\r\n", "TYPE", "Sicily"),
		expect(bulk("3479099956230698"), "ZSCORE", "Sicily", "Palermo"),
		expect(bulks("Palermo", "3479099956230698", "Catania", "3479447370796909"), "ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
		expect(intR(1), "GEOADD", "Sicily", "180", "0", "e"),
		expect(bulk("10133099161583616"), "ZSCORE", "Sicily", "e"),
		do("HELLO", "3"),
		expect(dbl("3479099956230698"), "ZSCORE", "Sicily", "Palermo"),
		expect(arr(arr(bulk("Palermo"), dbl("3479099956230698")), arr(bulk("Catania"), dbl("3479447370796909"))),
			"ZRANGE", "Sicily", "0", "1", "WITHSCORES"))
	add("9.1 any zset decodes",
		expect(intR(1), "ZADD", "k", "3479099956230698", "Palermo"),
		expect(arr(bulks("13.36138933897018433", "38.11555639549629859")), "GEOPOS", "k", "Palermo"),
		expect(intR(4), "ZADD", "z", "0", "zero", "1.5", "one", "-1", "neg", "inf", "inf"),
		expect(arr(bulks("-179.99999731779098511", "-85.05112751263942528"), bulks("180", "85.0511287799999991"), bulks("-179.99999731779098511", "-85.05112751263942528")),
			"GEOPOS", "z", "zero", "neg", "inf"))
	add("9.1 integer-looking and binary members",
		expect(intR(4), "GEOADD", "k", "1", "1", "4545", "1", "1", "a\x00b\r\nc", "1", "1", "", "1", "1", "-0"),
		expect(bulks("", "-0", "4545", "a\x00b\r\nc"), "GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"))

	// Found while building these tests: Redis stores a -0 score as 0 in a
	// listpack but keeps -0 in a skiplist (over 128 members), so ZSCORE
	// shows "0" or "-0" depending on the key's size.
	big := []string{"ZADD", "big"}
	for i := 0; i < 129; i++ {
		big = append(big, "1", fmt.Sprintf("m%d", i))
	}
	add("9.1 -0 score small key", expect(intR(1), "ZADD", "small", "-0", "m"), expect(bulk("0"), "ZSCORE", "small", "m"))
	add("9.1 -0 score skiplist key", expect(intR(129), big...), expect(intR(1), "ZADD", "big", "-0", "m"),
		expect(bulk("-0"), "ZSCORE", "big", "m"))
	return cs
}
