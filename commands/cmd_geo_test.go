package commands

import "testing"

// The tables here and in cmd_geosearch_test.go hold redis-server
// 7.0.15's replies to GEO-SPEC's cases; see cmd_captured_test.go.

func TestGeoaddReplies(t *testing.T) { runCaptured(t, geoaddScripts) }

func TestGeoReadReplies(t *testing.T) { runCaptured(t, geoReadScripts) }

// GEOADD: new members counted, NX/XX/CH, and errors that add nothing (GEO-SPEC §6.1).
var geoaddScripts = []capturedScript{
	{"GEOADD counts new members", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":0\r\n"},
		{"ZSCORE Sicily Palermo", "$16\r\n3479099956230698\r\n"},
		{"ZSCORE Sicily Catania", "$16\r\n3479447370796909\r\n"},
		{"TYPE Sicily", "+zset\r\n"},
		{"ZCARD Sicily", ":2\r\n"},
	}},
	{"GEOADD NX XX CH", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOADD Sicily NX 13 38 Palermo 14 37 NewOne", ":1\r\n"},
		{"GEOPOS Sicily Palermo", "*1\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n"},
		{"GEOADD Sicily XX 14.5 37.5 NewOne 14 37 NotThere", ":0\r\n"},
		{"ZCARD Sicily", ":3\r\n"},
		{"GEOADD Sicily XX CH 14 37 NewOne", ":1\r\n"},
		{"GEOADD Sicily CH 13.361390 38.115556 Palermo", ":0\r\n"},
		{"GEOADD Sicily ch nx 1 1 Palermo 2 2 Other", ":1\r\n"},
		{"GEOADD Sicily CH XX CH 1 1 Palermo", ":1\r\n"},
		{"GEOADD Sicily 1 1 dup 2 2 dup", ":1\r\n"},
		{"GEOPOS Sicily dup", "*1\r\n*2\r\n$19\r\n2.00000256299972534\r\n$18\r\n2.0000001856465488\r\n"},
	}},
	{"GEOADD errors change nothing", false, []step{
		{"GEOADD k NX XX 1 1 m", "-ERR syntax error\r\n"},
		{"GEOADD k GT 1 1 x", "-ERR syntax error\r\n"},
		{"GEOADD k GT 1 1", "-ERR value is not a valid float\r\n"},
		{"GEOADD k CH 1 1", "-ERR syntax error\r\n"},
		{"GEOADD k 1 1", "-ERR wrong number of arguments for 'geoadd' command\r\n"},
		{"geoadd k 1 1", "-ERR wrong number of arguments for 'geoadd' command\r\n"},
		{"GEOADD k 1 1 ok 500 1 bad", "-ERR invalid longitude,latitude pair 500.000000,1.000000\r\n"},
		{"GEOADD k 1 85.06 m", "-ERR invalid longitude,latitude pair 1.000000,85.060000\r\n"},
		{"GEOADD k 1 -85.06 m", "-ERR invalid longitude,latitude pair 1.000000,-85.060000\r\n"},
		{"GEOADD k 180.0000001 0 m", "-ERR invalid longitude,latitude pair 180.000000,0.000000\r\n"},
		{"GEOADD k nan 1 m", "-ERR value is not a valid float\r\n"},
		{"GEOADD k 1e400 1 m", "-ERR value is not a valid float\r\n"},
		{"GEOADD k 1 abc m", "-ERR value is not a valid float\r\n"},
		{"GEOADD k 0x10 1 hex", ":1\r\n"},
		{"GEOPOS k hex", "*1\r\n*2\r\n$20\r\n16.00000172853469849\r\n$19\r\n0.99999945914297683\r\n"},
		{"EXISTS k", ":1\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEOADD s 500 1 m", "-ERR invalid longitude,latitude pair 500.000000,1.000000\r\n"},
		{"GEOADD s 1 1 m", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"GEOADD s 1 1", "-ERR wrong number of arguments for 'geoadd' command\r\n"},
	}},
	{"GEOADD keeps a TTL", false, []step{
		{"GEOADD k 1 1 a", ":1\r\n"},
		{"EXPIRE k 1000", ":1\r\n"},
		{"GEOADD k 2 2 b", ":1\r\n"},
		{"TTL k", ":1000\r\n"},
	}},
}

// GEOPOS, GEODIST and GEOHASH (GEO-SPEC §6.2-6.4, §10), in RESP2 and RESP3.
var geoReadScripts = []capturedScript{
	{"GEOPOS", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOPOS Sicily Palermo Catania NonExisting", "*3\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n*-1\r\n"},
		{"GEOPOS Sicily", "*0\r\n"},
		{"GEOPOS nokey a b", "*2\r\n*-1\r\n*-1\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEOPOS s a", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"GEOADD edges 180 0 e -180 0 w 0 85.05112878 top 0 0 zero", ":4\r\n"},
		{"GEOPOS edges e w top zero", "*4\r\n*2\r\n$3\r\n180\r\n$19\r\n0.00000126736058093\r\n*2\r\n$22\r\n-179.99999731779098511\r\n$19\r\n0.00000126736058093\r\n*2\r\n$19\r\n0.00000268220901489\r\n$19\r\n85.0511287799999991\r\n*2\r\n$19\r\n0.00000268220901489\r\n$19\r\n0.00000126736058093\r\n"},
	}},
	{"GEOPOS RESP3", true, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOPOS Sicily Palermo Catania NonExisting", "*3\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n_\r\n"},
		{"GEODIST Sicily Palermo Catania", "$11\r\n166274.1516\r\n"},
		{"GEODIST Sicily Palermo Nope", "_\r\n"},
		{"GEOHASH Sicily Palermo Nope", "*2\r\n$11\r\nsqc8b49rny0\r\n_\r\n"},
	}},
	{"GEODIST units", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEODIST Sicily Palermo Catania", "$11\r\n166274.1516\r\n"},
		{"GEODIST Sicily Palermo Catania m", "$11\r\n166274.1516\r\n"},
		{"GEODIST Sicily Palermo Catania km", "$8\r\n166.2742\r\n"},
		{"GEODIST Sicily Palermo Catania KM", "$8\r\n166.2742\r\n"},
		{"GEODIST Sicily Palermo Catania mi", "$8\r\n103.3182\r\n"},
		{"GEODIST Sicily Palermo Catania ft", "$11\r\n545518.8700\r\n"},
		{"GEODIST Sicily Palermo Palermo", "$6\r\n0.0000\r\n"},
		{"GEODIST Sicily Palermo Nope", "$-1\r\n"},
		{"GEODIST Sicily Palermo Catania yd", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEODIST Sicily Palermo Catania km extra", "-ERR syntax error\r\n"},
		{"GEODIST nokey a b yd", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEODIST nokey a b", "$-1\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEODIST s a b yd", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEODIST s a b km", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"GEODIST Sicily Palermo", "-ERR wrong number of arguments for 'geodist' command\r\n"},
	}},
	{"GEODIST across the antimeridian and within one cell", false, []step{
		{"GEOADD am 179.5 36 p1 -179.5 36 p2 180 36 p180 -180 36 pm180", ":4\r\n"},
		{"GEODIST am p1 p2 km", "$7\r\n89.9833\r\n"},
		{"GEODIST am p180 pm180 km", "$6\r\n0.0004\r\n"},
		{"GEOADD tiny 0 0 a 0.000001 0 b 0.00001 0 c 0.0001 0 d", ":4\r\n"},
		{"GEODIST tiny a b", "$6\r\n0.0000\r\n"},
		{"GEODIST tiny a c", "$6\r\n0.5967\r\n"},
		{"GEODIST tiny a d", "$7\r\n10.7400\r\n"},
		{"GEODIST tiny a d km", "$6\r\n0.0107\r\n"},
	}},
	{"GEOHASH", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOHASH Sicily Palermo Catania Nope", "*3\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n$-1\r\n"},
		{"GEOHASH Sicily", "*0\r\n"},
		{"GEOHASH nokey a", "*1\r\n$-1\r\n"},
		{"GEOADD edges -5.6 42.6 x 0 0 zero 180 0 e -180 0 w 0 85.05112878 top", ":5\r\n"},
		{"GEOHASH edges x zero e w top", "*5\r\n$11\r\nezs42e44yx0\r\n$11\r\ns0000000000\r\n$11\r\n80000000000\r\n$11\r\n80000000000\r\n$11\r\nup05b5048p0\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEOHASH s a", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	}},
}
