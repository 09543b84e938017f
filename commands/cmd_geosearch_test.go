package commands

import "testing"

// Searches in process, against replies captured from redis-server 7.0.15;
// see cmd_geo_test.go.

func TestGeosearchReplies(t *testing.T) { runCaptured(t, geosearchScripts) }

func TestGeoradiusReplies(t *testing.T) { runCaptured(t, georadiusScripts) }

func TestGeoStoreReplies(t *testing.T) { runCaptured(t, geostoreScripts) }

func TestGeosearchErrors(t *testing.T) { runCaptured(t, geosearchErrorScripts) }

// GEOSEARCH: shapes, units, ASC/DESC, COUNT [ANY], WITH* (GEO-SPEC §6.5-6.6, §8, §10), ties (§8's partial sort) and the edges of the world.
var geosearchScripts = []capturedScript{
	{"GEOSEARCH shapes and sorting", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2", ":4\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "*2\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC", "*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km DESC", "*2\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km", "*4\r\n$7\r\nPalermo\r\n$5\r\nedge1\r\n$7\r\nCatania\r\n$5\r\nedge2\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST", "*4\r\n*3\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n*3\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*3\r\n$5\r\nedge2\r\n$8\r\n279.7403\r\n*2\r\n$20\r\n17.24151045083999634\r\n$20\r\n38.78813451624225195\r\n*3\r\n$5\r\nedge1\r\n$8\r\n279.7405\r\n*2\r\n$19\r\n12.7584877610206604\r\n$20\r\n38.78813451624225195\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km DESC WITHHASH", "*4\r\n*2\r\n$5\r\nedge1\r\n:3479273021651468\r\n*2\r\n$5\r\nedge2\r\n:3481342659049484\r\n*2\r\n$7\r\nPalermo\r\n:3479099956230698\r\n*2\r\n$7\r\nCatania\r\n:3479447370796909\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km WITHHASH WITHCOORD WITHDIST", "*4\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*4\r\n$5\r\nedge1\r\n$8\r\n279.7405\r\n:3479273021651468\r\n*2\r\n$19\r\n12.7584877610206604\r\n$20\r\n38.78813451624225195\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n*4\r\n$5\r\nedge2\r\n$8\r\n279.7403\r\n:3481342659049484\r\n*2\r\n$20\r\n17.24151045083999634\r\n$20\r\n38.78813451624225195\r\n"},
		{"GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km WITHDIST", "*3\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n*2\r\n$5\r\nedge1\r\n$7\r\n91.4007\r\n*2\r\n$7\r\nCatania\r\n$8\r\n166.2742\r\n"},
		{"GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 500 200 km ASC WITHDIST", "*3\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n*2\r\n$5\r\nedge1\r\n$7\r\n91.4007\r\n*2\r\n$7\r\nCatania\r\n$8\r\n166.2742\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200000 m ASC WITHDIST", "*2\r\n*2\r\n$7\r\nCatania\r\n$10\r\n56441.2579\r\n*2\r\n$7\r\nPalermo\r\n$11\r\n190442.4298\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 124.3 mi ASC WITHDIST", "*2\r\n*2\r\n$7\r\nCatania\r\n$7\r\n35.0711\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n118.3357\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 656168 ft ASC WITHDIST", "*2\r\n*2\r\n$7\r\nCatania\r\n$11\r\n185174.7305\r\n*2\r\n$7\r\nPalermo\r\n$11\r\n624811.1215\r\n"},
		{"geosearch Sicily frombember Palermo byradius 1 km", "-ERR syntax error\r\n"},
		{"geosearch Sicily frommember Palermo byradius 1 KM withdist", "*1\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n"},
		{"GEOSEARCH nokey FROMLONLAT 15 37 BYRADIUS 200 km", "*0\r\n"},
		{"GEOSEARCH nokey FROMMEMBER nobody BYRADIUS 200 km", "*0\r\n"},
	}},
	{"GEOSEARCH COUNT and ANY", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2", ":4\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 1", "*1\r\n$7\r\nCatania\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 2 DESC WITHDIST", "*2\r\n*2\r\n$5\r\nedge1\r\n$8\r\n279.7405\r\n*2\r\n$5\r\nedge2\r\n$8\r\n279.7403\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 3 ANY", "*3\r\n$7\r\nPalermo\r\n$5\r\nedge1\r\n$7\r\nCatania\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 3 ANY ASC", "*3\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n$5\r\nedge1\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 3 ANY DESC WITHDIST", "*3\r\n*2\r\n$5\r\nedge1\r\n$8\r\n279.7405\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 10", "*4\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n$5\r\nedge2\r\n$5\r\nedge1\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 10 ANY", "*4\r\n$7\r\nPalermo\r\n$5\r\nedge1\r\n$7\r\nCatania\r\n$5\r\nedge2\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 5 COUNT 1 DESC ASC", "*1\r\n$7\r\nCatania\r\n"},
	}},
	{"GEOSEARCH ties at one point", false, []step{
		{"GEOADD ties 10 10 m0 10 10 m1 10 10 m2 10 10 m3 10 10 m4 10 10 m5 10 10 m6 10 10 m7 10 10 m8 10 10 m9", ":10\r\n"},
		{"GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 1 km ASC", "*10\r\n$2\r\nm0\r\n$2\r\nm1\r\n$2\r\nm2\r\n$2\r\nm3\r\n$2\r\nm4\r\n$2\r\nm5\r\n$2\r\nm6\r\n$2\r\nm7\r\n$2\r\nm8\r\n$2\r\nm9\r\n"},
		{"GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 1 km DESC", "*10\r\n$2\r\nm0\r\n$2\r\nm1\r\n$2\r\nm2\r\n$2\r\nm3\r\n$2\r\nm4\r\n$2\r\nm5\r\n$2\r\nm6\r\n$2\r\nm7\r\n$2\r\nm8\r\n$2\r\nm9\r\n"},
		{"GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 1 km COUNT 3", "*3\r\n$2\r\nm9\r\n$2\r\nm1\r\n$2\r\nm2\r\n"},
		{"GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 1 km COUNT 9", "*9\r\n$2\r\nm9\r\n$2\r\nm1\r\n$2\r\nm2\r\n$2\r\nm3\r\n$2\r\nm4\r\n$2\r\nm5\r\n$2\r\nm6\r\n$2\r\nm7\r\n$2\r\nm8\r\n"},
		{"GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 1 km COUNT 3 DESC", "*3\r\n$2\r\nm9\r\n$2\r\nm1\r\n$2\r\nm2\r\n"},
	}},
	{"GEOSEARCH edges of the world", false, []step{
		{"GEOADD am 179.5 36 p1 -179.5 36 p2 180 36 p180 -180 36 pm180", ":4\r\n"},
		{"GEOSEARCH am FROMLONLAT 179 37 BYBOX 400 400 km ASC WITHDIST", "*3\r\n*2\r\n$2\r\np1\r\n$8\r\n119.8737\r\n*2\r\n$5\r\npm180\r\n$8\r\n142.7056\r\n*2\r\n$2\r\np2\r\n$8\r\n174.2313\r\n"},
		{"GEOSEARCH am FROMLONLAT 180 36 BYRADIUS 100 km WITHDIST", "*2\r\n*2\r\n$4\r\np180\r\n$6\r\n0.0003\r\n*2\r\n$2\r\np1\r\n$7\r\n44.9918\r\n"},
		{"GEOSEARCH am FROMLONLAT -180 36 BYRADIUS 100 km WITHDIST", "*3\r\n*2\r\n$5\r\npm180\r\n$6\r\n0.0002\r\n*2\r\n$2\r\np2\r\n$7\r\n44.9918\r\n*2\r\n$2\r\np1\r\n$7\r\n44.9918\r\n"},
		{"GEOADD pole 0 85 a 179.9999 85 b 0 85.05112877 top2 0 85.05112878 top", ":4\r\n"},
		{"GEOSEARCH pole FROMLONLAT 0 85 BYRADIUS 1200 km ASC WITHDIST", "*3\r\n*2\r\n$1\r\na\r\n$6\r\n0.0000\r\n*2\r\n$4\r\ntop2\r\n$6\r\n5.6867\r\n*2\r\n$1\r\nb\r\n$9\r\n1112.2630\r\n"},
		{"GEOADD world 0 0 o 179 0 far 0 80 n 0 -80 s 100 50 x -100 -50 y", ":6\r\n"},
		{"GEOSEARCH world FROMLONLAT 0 0 BYRADIUS 50000 km ASC WITHDIST", "*6\r\n*2\r\n$1\r\no\r\n$6\r\n0.0003\r\n*2\r\n$1\r\nn\r\n$9\r\n8898.1041\r\n*2\r\n$1\r\ns\r\n$9\r\n8898.1041\r\n*2\r\n$1\r\nx\r\n$10\r\n10723.1772\r\n*2\r\n$1\r\ny\r\n$10\r\n10723.1772\r\n*2\r\n$3\r\nfar\r\n$10\r\n19909.5077\r\n"},
		{"GEOSEARCH world FROMLONLAT 0 0 BYRADIUS 19000 km ASC", "*5\r\n$1\r\no\r\n$1\r\nn\r\n$1\r\ns\r\n$1\r\nx\r\n$1\r\ny\r\n"},
		{"GEOSEARCH world FROMLONLAT 0 0 BYBOX 40000 20000 km ASC", "*6\r\n$1\r\no\r\n$1\r\nn\r\n$1\r\ns\r\n$1\r\nx\r\n$1\r\ny\r\n$3\r\nfar\r\n"},
		{"GEOSEARCH world FROMLONLAT 0 0 BYRADIUS inf km ASC", "*6\r\n$1\r\no\r\n$1\r\nn\r\n$1\r\ns\r\n$1\r\nx\r\n$1\r\ny\r\n$3\r\nfar\r\n"},
		{"GEOADD tiny 0 0 a 0.000001 0 b 0.00001 0 c 0.0001 0 d", ":4\r\n"},
		{"GEOSEARCH tiny FROMMEMBER a BYRADIUS 0 m", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"GEOSEARCH tiny FROMLONLAT 0 0 BYRADIUS 0 m", "*0\r\n"},
		{"GEOSEARCH tiny FROMLONLAT 0 0 BYRADIUS 20 m WITHDIST ASC", "*4\r\n*2\r\n$1\r\na\r\n$6\r\n0.3300\r\n*2\r\n$1\r\nb\r\n$6\r\n0.3300\r\n*2\r\n$1\r\nc\r\n$6\r\n0.9060\r\n*2\r\n$1\r\nd\r\n$7\r\n11.0392\r\n"},
		{"GEOSEARCH tiny FROMLONLAT 0 0 BYRADIUS -0 m", "*0\r\n"},
	}},
}

// GEORADIUS, GEORADIUSBYMEMBER and their _RO forms, in RESP2 and RESP3.
var georadiusScripts = []capturedScript{
	{"GEORADIUS and GEORADIUSBYMEMBER", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2", ":4\r\n"},
		{"GEORADIUS Sicily 15 37 200 km", "*2\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n"},
		{"GEORADIUS Sicily 15 37 200 km WITHDIST", "*2\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n"},
		{"GEORADIUS Sicily 15 37 200 km WITHCOORD WITHHASH WITHDIST", "*2\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n"},
		{"GEORADIUS Sicily 15 37 200 km ASC WITHCOORD WITHHASH WITHDIST", "*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n"},
		{"GEORADIUS Sicily 15 37 300 km DESC COUNT 3", "*3\r\n$5\r\nedge1\r\n$5\r\nedge2\r\n$7\r\nPalermo\r\n"},
		{"GEORADIUS Sicily 15 37 300 km COUNT 2 ANY", "*2\r\n$7\r\nPalermo\r\n$5\r\nedge1\r\n"},
		{"GEORADIUS_RO Sicily 15 37 200 km WITHDIST ASC", "*2\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n"},
		{"GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST", "*3\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n*2\r\n$5\r\nedge1\r\n$7\r\n91.4007\r\n*2\r\n$7\r\nCatania\r\n$8\r\n166.2742\r\n"},
		{"GEORADIUSBYMEMBER Sicily Palermo 200 km DESC WITHHASH", "*3\r\n*2\r\n$7\r\nCatania\r\n:3479447370796909\r\n*2\r\n$5\r\nedge1\r\n:3479273021651468\r\n*2\r\n$7\r\nPalermo\r\n:3479099956230698\r\n"},
		{"GEORADIUSBYMEMBER_RO Sicily Palermo 100 mi ASC WITHCOORD", "*2\r\n*2\r\n$7\r\nPalermo\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*2\r\n$5\r\nedge1\r\n*2\r\n$19\r\n12.7584877610206604\r\n$20\r\n38.78813451624225195\r\n"},
		{"GEORADIUSBYMEMBER nokey m abc badunit", "*0\r\n"},
		{"GEORADIUS nokey 15 37 200 km", "*0\r\n"},
		{"GEOADD points -122.407107 37.794300 1 -122.227336 37.794300 2", ":2\r\n"},
		{"GEORADIUS points -122.407107 37.794300 30 mi ASC WITHDIST", "*2\r\n*2\r\n$1\r\n1\r\n$6\r\n0.0001\r\n*2\r\n$1\r\n2\r\n$6\r\n9.8182\r\n"},
	}},
	{"GEORADIUS RESP3", true, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEORADIUS Sicily 15 37 200 km ASC WITHCOORD WITHHASH WITHDIST", "*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC", "*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n"},
		{"GEOSEARCH nokey FROMLONLAT 15 37 BYRADIUS 200 km ASC", "*0\r\n"},
	}},
}

// STORE, STOREDIST and GEOSEARCHSTORE (GEO-SPEC §6.7).
var geostoreScripts = []capturedScript{
	{"STORE STOREDIST GEOSEARCHSTORE", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 17.241510 38.788135 edge2", ":4\r\n"},
		{"GEORADIUS Sicily 15 37 200 km STORE dst", ":2\r\n"},
		{"ZRANGE dst 0 -1 WITHSCORES", "*4\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$7\r\nCatania\r\n$16\r\n3479447370796909\r\n"},
		{"GEORADIUS Sicily 15 37 200 km STOREDIST dst", ":2\r\n"},
		{"ZRANGE dst 0 -1 WITHSCORES", "*4\r\n$7\r\nCatania\r\n$18\r\n56.441257870158204\r\n$7\r\nPalermo\r\n$18\r\n190.44242984775784\r\n"},
		{"GEORADIUS Sicily 15 37 200 km STORE a STOREDIST b", ":2\r\n"},
		{"EXISTS a", ":0\r\n"},
		{"ZRANGE b 0 -1 WITHSCORES", "*4\r\n$7\r\nCatania\r\n$18\r\n56.441257870158204\r\n$7\r\nPalermo\r\n$18\r\n190.44242984775784\r\n"},
		{"GEORADIUSBYMEMBER Sicily Palermo 200 km STORE byMember ASC COUNT 2", ":2\r\n"},
		{"ZRANGE byMember 0 -1 WITHSCORES", "*4\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$5\r\nedge1\r\n$16\r\n3479273021651468\r\n"},
		{"GEOSEARCHSTORE out Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3", ":3\r\n"},
		{"ZRANGE out 0 -1 WITHSCORES", "*6\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$7\r\nCatania\r\n$16\r\n3479447370796909\r\n$5\r\nedge2\r\n$16\r\n3481342659049484\r\n"},
		{"GEOSEARCHSTORE out Sicily FROMLONLAT 15 37 BYBOX 400 400 km DESC COUNT 2 STOREDIST", ":2\r\n"},
		{"ZRANGE out 0 -1 WITHSCORES", "*4\r\n$5\r\nedge2\r\n$17\r\n279.7403417843143\r\n$5\r\nedge1\r\n$18\r\n279.74045213563431\r\n"},
		{"SET str value", "+OK\r\n"},
		{"EXPIRE str 100", ":1\r\n"},
		{"GEOSEARCHSTORE str Sicily FROMMEMBER Catania BYRADIUS 1 km", ":1\r\n"},
		{"TYPE str", "+zset\r\n"},
		{"TTL str", ":-1\r\n"},
		{"GEOSEARCHSTORE Sicily Sicily FROMMEMBER Catania BYRADIUS 1 km", ":1\r\n"},
		{"ZRANGE Sicily 0 -1", "*1\r\n$7\r\nCatania\r\n"},
		{"GEOSEARCHSTORE out Sicily FROMLONLAT 0 0 BYRADIUS 1 m", ":0\r\n"},
		{"EXISTS out", ":0\r\n"},
		{"GEOSEARCHSTORE out nokey FROMLONLAT 0 0 BYRADIUS 1 m", ":0\r\n"},
		{"SET str2 value", "+OK\r\n"},
		{"GEORADIUS nokey 15 37 200 km STORE str2", ":0\r\n"},
		{"EXISTS str2", ":0\r\n"},
	}},
}

// The option table's errors, in the order Redis checks them (GEO-SPEC §6.5, §9).
var geosearchErrorScripts = []capturedScript{
	{"GEOSEARCH argument errors", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 1 1 BYRADIUS 1 km", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 1 1 FROMMEMBER Palermo BYRADIUS 1 km", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS 1 km BYBOX 1 1 km", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 1 1 FROMLONLAT 15 37 BYRADIUS 200 km", "*2\r\n$7\r\nPalermo\r\n$7\r\nCatania\r\n"},
		{"GeoSearch Sicily BYRADIUS 1 km ASC", "-ERR wrong number of arguments for 'geosearch' command\r\n"},
		{"geosearch Sicily FROMLONLAT 1 1 COUNT 1", "-ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch\r\n"},
		{"GEOSEARCHSTORE dst Sicily FROMLONLAT 1 1 ASC ASC", "-ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCHSTORE\r\n"},
		{"GEOSEARCH Sicily FROMMEMBER m", "-ERR wrong number of arguments for 'geosearch' command\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY", "-ERR the ANY argument requires COUNT argument\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 0", "-ERR COUNT must be > 0\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT -1", "-ERR COUNT must be > 0\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT abc", "-ERR value is not an integer or out of range\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS -1 km", "-ERR radius cannot be negative\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS abc km", "-ERR need numeric radius\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 yd", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km", "-ERR height or width cannot be negative\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 km", "-ERR height or width cannot be negative\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX abc 1 km", "-ERR need numeric width\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 abc km", "-ERR need numeric height\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 yd", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 200 37 BYRADIUS 1 km", "-ERR invalid longitude,latitude pair 200.000000,37.000000\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT abc 37 BYRADIUS 1 km", "-ERR value is not a valid float\r\n"},
		{"GEOSEARCH Sicily FROMMEMBER Nobody BYRADIUS 1 km", "-ERR could not decode requested zset member\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE dst", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STOREDIST", "-ERR syntax error\r\n"},
		{"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km NOSUCH", "-ERR syntax error\r\n"},
		{"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 km WITHDIST", "-ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"},
		{"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE x", "-ERR syntax error\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEOSEARCH s FROMLONLAT 500 500 BYRADIUS 1 km", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"GEOSEARCHSTORE dst s FROMLONLAT 15 37 BYRADIUS 1 km", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	}},
	{"GEORADIUS argument errors", false, []step{
		{"GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
		{"GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST", "-ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"},
		{"GEORADIUSBYMEMBER Sicily Palermo 200 km WITHHASH STOREDIST dst", "-ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"},
		{"GEORADIUS_RO Sicily 15 37 200 km STORE dst", "-ERR syntax error\r\n"},
		{"GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STOREDIST dst", "-ERR syntax error\r\n"},
		{"GEORADIUS Sicily 15 37 200 km FROMLONLAT 1 1", "-ERR syntax error\r\n"},
		{"GEORADIUS Sicily 15 37 -1 km", "-ERR radius cannot be negative\r\n"},
		{"GEORADIUS Sicily 15 37 abc km", "-ERR need numeric radius\r\n"},
		{"GEORADIUS Sicily 15 37 1 parsec", "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"},
		{"GEORADIUS Sicily 15 95 1 km", "-ERR invalid longitude,latitude pair 15.000000,95.000000\r\n"},
		{"GEORADIUS Sicily 15 37 1 km COUNT 0", "-ERR COUNT must be > 0\r\n"},
		{"GEORADIUS Sicily 15 37 1 km ANY", "-ERR the ANY argument requires COUNT argument\r\n"},
		{"GEORADIUS Sicily 15 37 1 km STORE", "-ERR syntax error\r\n"},
		{"GEORADIUSBYMEMBER Sicily Nobody 200 km", "-ERR could not decode requested zset member\r\n"},
		{"GEORADIUSBYMEMBER Sicily Nobody abc km", "-ERR could not decode requested zset member\r\n"},
		{"GEORADIUSBYMEMBER Sicily Palermo abc km", "-ERR need numeric radius\r\n"},
		{"GEORADIUS Sicily 15 37 200", "-ERR wrong number of arguments for 'georadius' command\r\n"},
		{"SET s str", "+OK\r\n"},
		{"GEORADIUS s 500 500 1 km", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"GEORADIUSBYMEMBER s m 1 km", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	}},
}
