package commands

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"geoshard/internal/redistest"
	"geoshard/resp"
)

// The differential tests send the same commands to a real redis-server
// 7.0 and to the Engine and compare the raw reply bytes, in RESP2 and in
// RESP3.

// startRedis runs a redis-server for the test on a free loopback port.
func startRedis(t *testing.T, extra ...string) string {
	t.Helper()
	addr := redistest.Start(t, append([]string{"--enable-debug-command", "yes"}, extra...)...)
	r := dialRedis(t, addr)
	defer r.conn.Close()
	for i, a := range extra {
		if a == "--requirepass" && i+1 < len(extra) {
			r.send([]string{"AUTH", extra[i+1]})
		}
	}
	v := r.send([]string{"INFO", "server"})
	if !strings.Contains(v, "redis_version:7.0.") {
		t.Fatalf("these tests compare against Redis 7.0; redis-server answered INFO with %.200q", v)
	}
	return addr
}

// redisConn is a raw connection to the real server.
type redisConn struct {
	t    testing.TB
	conn net.Conn
	rd   *bufio.Reader
}

func dialRedis(t testing.TB, addr string) *redisConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &redisConn{t: t, conn: c, rd: bufio.NewReader(c)}
}

// send sends one command and returns its raw reply.
func (r *redisConn) send(args []string) string {
	r.t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	r.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.conn.Write(b.Bytes()); err != nil {
		r.t.Fatalf("write to redis: %v", err)
	}
	out, err := resp.ReadReply(r.rd, nil)
	if err != nil {
		r.t.Fatalf("%q: read from redis: %v", args, err)
	}
	return string(out)
}

// parsedReply is a reply split into its elements, for comparisons that
// ignore order.
type parsedReply struct {
	raw  string
	kids []parsedReply
}

// parseReply splits the first reply in raw into its elements, and theirs,
// and returns what follows it; bytes that are not a reply come back whole.
func parseReply(raw string) (parsedReply, string) {
	one, err := resp.ReadReply(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		return parsedReply{raw: raw}, ""
	}
	p := parsedReply{raw: string(one)}
	if _, elems, err := resp.SplitReply(one); err == nil {
		for _, e := range elems {
			k, _ := parseReply(string(e))
			p.kids = append(p.kids, k)
		}
	}
	return p, raw[len(one):]
}

// How a step's replies are compared.
const (
	exact     = iota
	kindOnly  // same reply type: the value depends on time or connection
	unordered // an array whose elements may come in any order
	scanPage  // SCAN: same cursor, same keys in any order
	helloMap  // HELLO: the same map but for the connection id
	skipBoth  // run on both, compare nothing
)

// dstep is one command of a differential script.
type dstep struct {
	args []string
	mode int
}

// w builds a step from space-separated words.
func w(cmd string) dstep { return dstep{args: strings.Fields(cmd)} }

// wa builds a step from exact words (binary or empty arguments).
func wa(args ...string) dstep { return dstep{args: args} }

func (s dstep) as(mode int) dstep { s.mode = mode; return s }

var helloID = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// sameReply compares two raw replies as the step asks.
func sameReply(mode int, a, b string) bool {
	switch mode {
	case kindOnly:
		return len(a) > 0 && len(b) > 0 && a[0] == b[0]
	case unordered:
		pa, _ := parseReply(a)
		pb, _ := parseReply(b)
		return a[:strings.Index(a, "\r\n")] == b[:strings.Index(b, "\r\n")] &&
			sameSet(pa.kids, pb.kids)
	case scanPage:
		pa, _ := parseReply(a)
		pb, _ := parseReply(b)
		return len(pa.kids) == 2 && len(pb.kids) == 2 && pa.kids[0].raw == pb.kids[0].raw &&
			sameSet(pa.kids[1].kids, pb.kids[1].kids)
	case helloMap:
		return helloID.ReplaceAllString(a, "") == helloID.ReplaceAllString(b, "")
	case skipBoth:
		return true
	}
	return a == b
}

func sameSet(a, b []parsedReply) bool {
	if len(a) != len(b) {
		return false
	}
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		as[i], bs[i] = a[i].raw, b[i].raw
	}
	sort.Strings(as)
	sort.Strings(bs)
	return strings.Join(as, "\x00") == strings.Join(bs, "\x00")
}

// differ plays scripts against Redis and the Engine side by side.
type differ struct {
	t     *testing.T
	redis *redisConn
	s     *session
	fails int
}

func newDiffer(t *testing.T, addr string, s *session) *differ {
	d := &differ{t: t, redis: dialRedis(t, addr), s: s}
	t.Cleanup(func() { d.redis.conn.Close() })
	return d
}

// step runs one command on both and reports a difference.
func (d *differ) step(st dstep) {
	d.t.Helper()
	want := d.redis.send(st.args)
	got := d.s.do(st.args...)
	if !sameReply(st.mode, want, got) {
		d.fails++
		if d.fails <= 20 {
			d.t.Errorf("%q (RESP%d)\nredis:    %.300q\ngeoshard: %.300q", st.args, d.s.c.W.Proto, want, got)
		}
	}
}

// play runs a script from a clean keyspace, once in RESP2 and once in
// RESP3.
func (d *differ) play(steps []dstep) {
	d.t.Helper()
	for _, proto := range []string{"2", "3"} {
		for _, st := range []dstep{w("RESET").as(skipBoth), w("FLUSHALL"), w("HELLO " + proto).as(helloMap)} {
			d.step(st)
		}
		for _, st := range steps {
			d.step(st)
		}
	}
}

// testConfig is a configuration with some directives Redis has too.
func testConfig() *Config {
	cfg := NewConfig()
	for name, v := range map[string]string{"databases": "16", "save": "", "appendonly": "no"} {
		cfg.Add(&Setting{Name: name, Get: func() string { return v }})
	}
	cfg.SetProtectedActions(AllowNo, AllowYes) // as startRedis runs redis-server
	return cfg
}

func TestDifferentialAgainstRedis(t *testing.T) {
	addr := startRedis(t)
	for _, fam := range []struct {
		name  string
		steps []dstep
	}{
		{"zset", zsetScript},
		{"zrange", zrangeScript},
		{"keys", keysScript},
		{"string", stringScript},
		{"conn", connScript},
		{"server", serverScript},
		{"multi", multiScript},
	} {
		t.Run(fam.name, func(t *testing.T) {
			s := newSession(t)
			s.e.config = testConfig()
			newDiffer(t, addr, s).play(fam.steps)
		})
	}
}

var zsetScript = []dstep{
	w("ZADD z 1 a 2 b 3 c"), w("ZADD z 1 a"), w("ZADD z CH 5 a 2 b"), w("ZCARD z"), w("ZCARD nokey"),
	w("ZADD z NX XX 1 a"), w("ZADD z NX GT 1 a"), w("ZADD z GT LT 1 a"), w("ZADD z NX LT 1 a"),
	w("ZADD z XX GT 1 a"), w("ZADD z XX GT 9 a"), w("ZADD z XX LT 9 a"), w("ZADD z LT CH 0 a 0 q"),
	w("ZADD z GT CH 0 a 7 b"), w("ZADD z INCR 1 a 2 b"), w("ZADD z 1 a 2"), w("ZADD z NX XX 1 a 2"),
	w("ZADD z x a"), w("ZADD z 1 a x b"), w("ZADD z nan a"), w("ZADD z 1e400 a"), w("ZADD z 1e-400 a"),
	w("ZADD z NX"), w("ZADD z"), w("ZADD z inf i -inf j"), w("ZADD z INCR -inf i"), w("ZSCORE z i"),
	w("ZADD z INCR 1 a"), w("ZADD z INCR -0 new"), w("ZSCORE z new"), w("ZADD z INCR -0 new"),
	w("ZADD z -0 nz"), w("ZSCORE z nz"), w("ZADD z 0 nz"), w("ZADD z CH -0 nz"),
	w("ZADD z NX INCR 1 a"), w("ZADD z XX INCR 1 nope"), w("ZADD z GT INCR -1 a"), w("ZADD z LT INCR -1 a"),
	w("ZADD z LT INCR 1 a"), w("ZADD nokey XX 1 a"), w("EXISTS nokey"), w("ZADD nokey XX INCR 1 a"),
	w("ZADD z 0.1 f 1e20 g 1e21 h 1e-5 k 123456789012345678 l 0x10 m 1.5e+3 n .5 o 5. p +7 r"),
	w("ZRANGE z 0 -1 WITHSCORES"), w("ZSCORE z f"), w("ZSCORE z nope"), w("ZSCORE nokey a"),
	w("ZMSCORE z a nope f"), w("ZMSCORE nokey a b"), w("ZMSCORE z"),
	w("ZINCRBY z 2.5 a"), w("ZINCRBY z x a"), w("ZINCRBY z 1 brandnew"), w("ZINCRBY z -inf i"),
	w("ZRANK z a"), w("ZRANK z nope"), w("ZRANK nokey a"), w("ZREVRANK z a"), w("ZRANK z a extra"),
	w("ZCOUNT z -inf +inf"), w("ZCOUNT z (1 3"), w("ZCOUNT z x 3"), w("ZCOUNT nokey 1 2"),
	w("ZREM z a b nope"), w("ZREM nokey a"), w("ZREM z"), w("ZCARD z"),
	w("SET s v"), w("ZADD s 1 a"), w("ZADD s x a"), w("ZSCORE s a"), w("ZMSCORE s a"), w("ZCARD s"),
	w("ZRANK s a"), w("ZREM s a"), w("ZRANGE s 0 1"), w("ZCOUNT s 0 1"), w("ZINCRBY s 1 a"),
	wa("ZADD", "bin", "1", "a\x00b", "1", "", "2", "\xff\xfe"), wa("ZSCORE", "bin", "a\x00b"),
	w("ZRANGE bin 0 -1 WITHSCORES"), wa("ZRANK", "bin", ""),
	// Removing the last member deletes the key and its TTL.
	w("ZADD t 1 a"), w("EXPIRE t 100"), w("TTL t"), w("ZREM t a"), w("EXISTS t"), w("ZADD t 1 a"), w("TTL t"),
	wa("ZADD", "z", "nx\x00junk", "1", "zz"), wa("ZADD", "z", "1 ", "a"), wa("ZADD", "z", " 1", "a"),
	// Past 128 members or 64 bytes Redis changes encoding, and keeps -0.
	bigZadd("big", 130), w("ZADD big -0 negzero"), w("ZSCORE big negzero"), w("ZADD big INCR -0 negzero2"),
	w("ZSCORE big negzero2"), w("ZCARD big"), w("ZRANGE big [m100 (m105 BYLEX"), w("ZRANGE big 0 2 WITHSCORES"),
	wa("ZADD", "long", "-0", strings.Repeat("x", 65)), wa("ZSCORE", "long", strings.Repeat("x", 65)),
	w("ZADD short -0 a"), w("ZSCORE short a"),
}

// bigZadd adds n members, all scored 0, in one ZADD.
func bigZadd(key string, n int) dstep {
	args := []string{"ZADD", key}
	for i := 0; i < n; i++ {
		args = append(args, "0", fmt.Sprintf("m%d", i))
	}
	return dstep{args: args}
}

var zrangeScript = []dstep{
	w("ZADD z 1 a 2 b 3 c 4 d"), w("ZADD same 0 a 0 b 0 c 0 d 0 e 0 aa"),
	w("ZRANGE z 0 -1"), w("ZRANGE z 0 -1 WITHSCORES"), w("ZRANGE z -2 -1"), w("ZRANGE z 2 1"),
	w("ZRANGE z 5 10"), w("ZRANGE z -100 100"), w("ZRANGE z 0 -1 REV"), w("ZRANGE z 0 0 REV WITHSCORES"),
	w("ZRANGE z 0 -1 BYSCORE LIMIT -1 2"), w("ZRANGE z -inf +inf BYSCORE LIMIT 1 -1"),
	w("ZRANGE z -inf +inf BYSCORE LIMIT 1 0"), w("ZRANGE z ( 3 BYSCORE"), w("ZRANGE z (1 (3 BYSCORE"),
	w("ZRANGE z ( (3 BYSCORE"), w("ZRANGE z 1e400 inf BYSCORE"), w("ZRANGE z 0x1 3 BYSCORE"),
	w("ZRANGE z 0x1p1 3 BYSCORE"), w("ZRANGE z nan 3 BYSCORE"), w("ZRANGE z 0x 3 BYSCORE"),
	w("ZRANGE z -1e-400 3 BYSCORE"), w("ZRANGE z infinity 3 BYSCORE"), w("ZRANGE z 1_0 3 BYSCORE"),
	wa("ZRANGE", "z", "", "3", "BYSCORE"), wa("ZRANGE", "z", " 1", "3", "BYSCORE"),
	wa("ZRANGE", "z", "1 ", "3", "BYSCORE"), wa("ZRANGE", "z", "1\x00x", "3", "BYSCORE"),
	wa("ZRANGE", "z", "(", "(", "BYSCORE"), wa("ZRANGE", "z", " ", "3", "BYSCORE"),
	w("ZRANGE z 1 3 BYSCORE LIMIT 0 -5"), w("ZRANGE z 1 3 BYSCORE LIMIT 5 -5"),
	w("ZRANGE z 1 3 BYSCORE LIMIT 2 -5"), w("ZRANGE z 3 1 BYSCORE REV"), w("ZRANGE z 3 1 BYSCORE REV LIMIT 1 1 WITHSCORES"),
	w("ZRANGE z +inf -inf BYSCORE REV WITHSCORES"), w("ZRANGE z 2 2 BYSCORE"), w("ZRANGE z (2 2 BYSCORE"),
	w("ZRANGE z 3 1 BYSCORE"),
	w("ZRANGE z 1 3 LIMIT 0 1"), w("ZRANGE z 1 3 BYLEX WITHSCORES"), w("ZRANGE z 1 3 REV REV"),
	w("ZRANGE z 1 3 BYSCORE BYSCORE"), w("ZRANGE z 1 3 BYSCORE BYLEX"), w("ZRANGE z a b LIMIT 0"),
	w("ZRANGE z 0 1 LIMIT x 1"), w("ZRANGE z 0 1 LIMIT 1 x"), w("ZRANGE nokey x y"), w("ZRANGE z x y"),
	w("ZRANGE nokey 0 -1"), w("ZRANGE z 0 -1 FOO"), w("ZRANGE z 01 2"), w("ZRANGE z -0 2"),
	w("ZREVRANGE z 0 1 WITHSCORES"), w("ZREVRANGE z 0 1 LIMIT 0 1"), w("ZREVRANGE z 0 1 BYSCORE"), w("ZREVRANGE z 0 1 REV"),
	w("ZRANGEBYSCORE z 1 3 REV"), w("ZRANGEBYSCORE z 1 3 WITHSCORES LIMIT 1 5"), w("ZRANGEBYSCORE z (1 +inf"),
	w("ZRANGEBYSCORE z 1 3 BYSCORE"), w("ZREVRANGEBYSCORE z 3 1 WITHSCORES"), w("ZREVRANGEBYSCORE z 1 3"),
	w("ZREVRANGEBYSCORE z +inf -inf LIMIT 1 2"),
	w("ZRANGE z [a [c BYLEX"), w("ZRANGE z - + BYLEX LIMIT 1 2"), w("ZRANGE z a c BYLEX"), w("ZRANGE z + - BYLEX REV"),
	w("ZRANGE z - + BYLEX LIMIT 5 1"), w("ZRANGE z - + BYLEX LIMIT -1 1"), w("ZRANGE z + - BYLEX"),
	w("ZRANGE same [b (e BYLEX"), w("ZRANGE same (a [aa BYLEX"), w("ZRANGE same - [c BYLEX"),
	w("ZRANGE same [c - BYLEX REV"), w("ZRANGE same (e - BYLEX REV LIMIT 1 2"), w("ZRANGE same [z + BYLEX"),
	w("ZRANGE same - - BYLEX"), w("ZRANGE same + + BYLEX"), w("ZRANGE same [a [a BYLEX"), w("ZRANGE same (a (a BYLEX"),
	w("ZRANGE same [b [a BYLEX"), w("ZRANGE same -a + BYLEX"), w("ZRANGE same - +a BYLEX"),
	wa("ZRANGE", "same", "", "+", "BYLEX"), wa("ZRANGE", "same", "-\x00x", "+", "BYLEX"), wa("ZRANGE", "same", "[", "+", "BYLEX"),
	w("ZRANGEBYLEX same - +"), w("ZRANGEBYLEX same [b [d LIMIT 1 1"), w("ZREVRANGEBYLEX same + -"),
	w("ZREVRANGEBYLEX same [d [b"), w("ZRANGEBYLEX same - + WITHSCORES"), w("ZRANGEBYLEX same - + BYLEX"),
	w("ZRANGEBYLEX z - +"), w("ZRANGEBYLEX z [b [c"), w("ZREVRANGEBYLEX z [c [b"),
	// BYLEX over a set of differing scores walks it in score order.
	w("ZADD mixed 3 a 1 b 2 c 0 d 5 e"), w("ZRANGE mixed [b [d BYLEX"), w("ZRANGE mixed [a [c BYLEX"),
	w("ZRANGE mixed [d [b BYLEX REV"), w("ZRANGE mixed - [c BYLEX"), w("ZRANGE mixed (a + BYLEX LIMIT 1 2"),
	w("ZRANGEBYSCORE z -inf +inf LIMIT 9999999999999 1"), w("ZRANGE z 0 9223372036854775807"),
	w("ZRANGE z -9223372036854775808 -1"), w("ZRANGE z 0 -1 BYSCORE LIMIT 0 9223372036854775807"),
	w("ZRANGE z 9223372036854775807 9223372036854775807"), w("ZRANGEBYLEX same - + LIMIT 0 -1"),
	w("ZRANGEBYLEX same - + LIMIT 2 9223372036854775807"), w("ZREVRANGEBYSCORE z (4 (1 WITHSCORES LIMIT 0 1"),
	w("ZRANGE z 0 -1 LIMIT 0 1 BYSCORE"), wa("ZRANGE", "z", "0", "-1", "withscores\x00"), wa("ZRANGE", "z", "0", "-1", "withscores\x00x"),
	w("SET s v"), w("ZRANGE s 0 1"), w("ZRANGE s x 1"), w("ZRANGEBYSCORE s 0 1"), w("ZRANGEBYLEX s - +"),
}

var keysScript = []dstep{
	w("SET a 1"), w("ZADD z 1 m"), w("EXISTS a z nokey a"), w("TYPE a"), w("TYPE z"), w("TYPE nokey"),
	w("KEYS *").as(unordered), w("KEYS ?").as(unordered), w("KEYS [a-b]"), w("KEYS z*"), w("KEYS nomatch"), w("DBSIZE"),
	w("SCAN 0 COUNT 1000").as(scanPage), w("SCAN 0 MATCH z* COUNT 1000").as(scanPage),
	w("SCAN 0 TYPE zset COUNT 1000").as(scanPage), w("SCAN 0 TYPE STRING COUNT 1000").as(scanPage),
	w("SCAN 0 TYPE foo").as(scanPage), w("SCAN x"), w("SCAN -1").as(kindOnly), w("SCAN 18446744073709551616"),
	w("SCAN 0 COUNT 0"), w("SCAN 0 MATCH"), w("SCAN 0 TYPE"), w("SCAN 0 COUNT x"), w("SCAN 0 FOO bar"),
	w("SCAN +0 COUNT 1000").as(scanPage), wa("SCAN", " 0"), wa("SCAN", "+"), wa("SCAN", "0 "),
	w("EXPIRE a 100 NX XX"), w("EXPIRE a 100 GT LT"), w("EXPIRE a 100 FOO"), w("EXPIRE a x FOO"),
	w("EXPIRE a 100 NX GT"), w("EXPIRE nokey 100 FOO"), w("EXPIRE a x"), w("EXPIRE a 9223372036854775807"),
	w("PEXPIRE a 9223372036854775807"), w("EXPIRE a 9223372036854775"), w("EXPIRE nokey 9223372036854775807"),
	w("EXPIRE nokey 100"), w("EXPIRE a 100 XX"), w("EXPIRE a 100 NX"), w("TTL a"), w("EXPIRE a 100 NX"),
	w("EXPIRE a 200 LT"), w("EXPIRE a 50 LT"), w("TTL a"), w("EXPIRE a 40 GT"), w("EXPIRE a 60 GT"), w("TTL a"),
	w("PTTL a").as(kindOnly), w("EXPIRETIME a").as(kindOnly), w("PERSIST a"), w("PERSIST a"), w("PERSIST nokey"),
	w("TTL a"), w("PTTL a"), w("EXPIRETIME a"), w("PEXPIRETIME a"), w("TTL nokey"), w("PTTL nokey"),
	w("EXPIRE a 10 GT"), w("EXPIRE a 10 LT"), w("TTL a"), w("EXPIRE a 0"), w("EXISTS a"), w("TTL a"),
	w("SET a 1"), w("EXPIRE a -9223372036854775"), w("EXISTS a"), w("SET a 1"), w("PEXPIRE a -1"), w("EXISTS a"),
	w("SET a 1"), w("EXPIREAT a 1"), w("EXISTS a"), w("SET a 1"), w("PEXPIREAT a 99999999999999"), w("PEXPIRETIME a"),
	w("EXPIREAT a 99999999999"), w("EXPIRETIME a"), w("EXPIREAT a 99999999999999999"), w("EXPIRE a 1 2"),
	w("ZADD zt 1 m"), w("EXPIRE zt 100"), w("TTL zt"), w("PERSIST zt"), w("TTL zt"),
	w("SET b 1"), w("RENAME b b"), w("RENAME nokey x"), w("RENAME nokey nokey"), w("EXPIRE b 100"),
	w("RENAME b c"), w("TTL c"), w("EXISTS b"), w("TYPE c"), w("SET d 1"), w("RENAME d c"), w("TTL c"),
	w("RENAME z c"), w("TYPE c"), w("ZRANGE c 0 -1"), w("EXISTS z"), w("SET e 1"), w("RENAME c e"), w("TYPE e"),
	w("RENAMENX e e"), w("RENAMENX nokey x"), w("SET f 1"), w("RENAMENX e f"), w("RENAMENX e g"), w("TYPE g"),
	w("EXPIRE g 100"), w("RENAME f g"), w("TTL g"), w("TYPE g"),
	w("DEL a b c nokey g g"), w("UNLINK e f"), w("DEL"), w("DBSIZE"),
	w("SELECT 16"), w("SELECT -1"), w("SELECT x"), w("SELECT 01"), w("SELECT 9999999999"), w("SELECT 2147483648"),
	w("SELECT 3"), w("SET in3 v"), w("DBSIZE"), w("KEYS *"), w("SELECT 0"), w("DBSIZE"), w("EXISTS in3"),
	w("FLUSHDB x"), w("FLUSHDB ASYNC"), w("FLUSHALL SYNC x"), w("FLUSHDB sync"), w("SELECT 3"), w("DBSIZE"),
	w("ZADD z3 1 a"), w("FLUSHALL"), w("DBSIZE"), w("SELECT 0"),
	// Before any EXPIRE: Redis's avg_ttl keeps a deleted key's TTL until its
	// next expire cycle (every 100 ms), so after one it depends on timing.
	w("SET s v"), w("ZADD z 1 a 2 b"), w("INFO keyspace"), w("INFO KEYSPACE foo"), w("INFO foo"),
	wa("SET", "k", "v"), wa("EXPIRE", "k", "100", "nx\x00"), wa("EXPIRE", "k", "100", "nx\x00x"), w("TTL k"),
	wa("EXPIRE", "k", "100", "a\x00b"), w("DEL k"),
}

var stringScript = []dstep{
	w("SET k v"), w("GET k"), w("GET nokey"), w("SET k v EX 100"), w("TTL k"), w("SET k v"), w("TTL k"),
	w("SET k v PX 100000"), w("PTTL k").as(kindOnly), w("SET k v2 KEEPTTL"), w("TTL k"), w("GET k"),
	w("SET k v EXAT 1"), w("EXISTS k"), w("SET k v EX 0"), w("SET k v PX -1"), w("SET k v EX x"),
	w("SET k v EX 9223372036854775"), w("SET k v EX 9223372036854775807"), w("SET k v PXAT 9223372036854775807"),
	w("SET k v KEEPTTL EX 1"), w("SET k v EX 1 PX 1"), w("SET k v EX 1 EX 100"), w("TTL k"), w("SET k v EX"),
	w("SET k v NX XX"), w("SET k v XX NX"), w("SET k v NX"), w("SET k v2 NX"), w("GET k"), w("SET k v3 XX"),
	w("SET nokey v XX"), w("EXISTS nokey"), w("SET k v GET"), w("SET k v2 GET"), w("SET new v GET"),
	w("SET k v GET NX"), w("SET k v3 GET XX"), w("GET k"), w("SET k v FOO"), w("SET k"),
	w("ZADD z 1 a"), w("SET z v GET"), w("GET z"), w("EXPIRE z 100"), w("SET z v"), w("TYPE z"), w("TTL z"),
	w("GET z"), w("ZADD z 1 a"), w("ZCARD z"), w("ZADD zz 1 a"), w("SET zz v NX"), w("SET zz v XX"), w("TYPE zz"),
	wa("SET", "k\x00", "v3"), wa("GET", "k\x00"), wa("SET", "k", "v", "nx\x00hi"), wa("SET", "bin", "\x00\xff\r\n"),
	wa("GET", "bin"), wa("SET", "empty", ""), w("GET empty"), w("GET k x"),
	w("SET k v PXAT 1"), w("GET k"), w("SET k v EXAT 9999999999"), w("TTL k").as(kindOnly), w("EXPIRETIME k"),
	w("SET k v GET GET"), w("SET k v KEEPTTL KEEPTTL"), w("SET k v PX 100 PX 5000000"), w("TTL k"),
}

var connScript = []dstep{
	w("PING"), w("PING x"), w("PING a b"), w("ECHO"), w("ECHO x"), wa("ECHO", ""), w("ECHO a b"),
	w("AUTH x"), w("AUTH default x"), w("AUTH foo x"), w("AUTH a b c"), w("AUTH"),
	w("HELLO 4"), w("HELLO 1"), w("HELLO x"), w("HELLO -3"), w("HELLO 3 AUTH default x").as(helloMap),
	w("HELLO 3 AUTH foo x"), w("HELLO 3 SETNAME"), w("HELLO 3 FOO"), w("HELLO 3 AUTH default"),
	w("HELLO 2 SETNAME bad name"), w("CLIENT GETNAME"), w("HELLO 2 SETNAME ok").as(helloMap), w("CLIENT GETNAME"),
	wa("HELLO", "2", "SETNAME", "a b"), w("CLIENT GETNAME"),
	w("CLIENT SETNAME"), w("CLIENT SETNAME ab"), w("CLIENT GETNAME"), w("CLIENT SETNAME a b"),
	wa("CLIENT", "SETNAME", "a\nb"), wa("CLIENT", "SETNAME", "\xffx"), wa("CLIENT", "SETNAME", "~!"),
	wa("CLIENT", "SETNAME", ""), w("CLIENT GETNAME"), w("CLIENT GETNAME x"), w("CLIENT FOO"), w("CLIENT"),
	w("CLIENT ID").as(kindOnly), w("CLIENT ID x"), w("CLIENT INFO").as(kindOnly), w("CLIENT LIST").as(kindOnly),
	w("CLIENT LIST TYPE normal").as(kindOnly), w("CLIENT LIST TYPE master"), w("CLIENT LIST TYPE pubsub"),
	w("CLIENT LIST ID 999999 1000000"), w("CLIENT LIST ID x"), w("CLIENT LIST TYPE foo"), w("CLIENT LIST foo"),
	w("CLIENT LIST ID"), w("CLIENT NO-EVICT maybe"), w("CLIENT NO-EVICT on"), w("CLIENT NO-EVICT OFF"),
	w("CLIENT NO-EVICT"), w("HELLO 3 AUTH default x SETNAME n").as(helloMap), w("CLIENT GETNAME"),
	wa("ECHO", "\x00\r\n\xff"), w("PING").as(exact), w("SELECT 2"), w("CLIENT SETNAME named"), w("RESET"), w("CLIENT GETNAME"),
	w("SET x 1"), w("SELECT 0"), w("EXISTS x"),
}

var serverScript = []dstep{
	w("CONFIG GET databases"), w("CONFIG GET save"), w("CONFIG GET DATABASES"), w("CONFIG GET appendonly databases").as(unordered),
	w("CONFIG GET nomatch"), w("CONFIG GET"), w("CONFIG GET databases databases"), w("CONFIG GET data*"),
	w("CONFIG SET foo 1"), w("CONFIG SET databases"), w("CONFIG SET databases 1 save"), w("CONFIG SET databases 1"),
	w("CONFIG SET databases 1 databases 2"), w("CONFIG SET foo 1 databases 2"), w("CONFIG SET databases 2 foo 1"),
	w("CONFIG REWRITE"), w("CONFIG REWRITE x"), w("CONFIG RESETSTAT"), w("CONFIG FOO"), w("CONFIG"),
	w("FUNCTION FLUSH"), w("FUNCTION FLUSH x"), w("FUNCTION FLUSH sync x"), w("FUNCTION FLUSH async"),
	w("FUNCTION FLUSH SYNC"), w("FUNCTION"),
	w("DEBUG SLEEP 0"), w("DEBUG SLEEP 0.01"), w("DEBUG foo"), w("DEBUG"), w("DEBUG SLEEP"), w("DEBUG SLEEP abc"),
	w("DEBUG SLEEP 0 1"), w("INFO everything").as(kindOnly), w("COMMAND").as(kindOnly), w("COMMAND INFO").as(kindOnly),
	w("COMMAND DOCS").as(kindOnly), w("COMMAND LIST").as(kindOnly),
	w("TIME").as(kindOnly), w("TIME x"), w("INFO").as(kindOnly), w("INFO all").as(kindOnly),
	w("INFO cluster"), w("INFO modules"), w("INFO keyspace"), w("INFO CLUSTER keyspace"),
	w("COMMAND COUNT").as(kindOnly), w("COMMAND COUNT x"), w("COMMAND FOO"), w("COMMAND INFO nope"),
	w("COMMAND INFO nope get"), w("COMMAND INFO GET ZADD"), w("COMMAND DOCS nope"), w("COMMAND DOCS Get"),
	w("COMMAND DOCS ping zscore"), w("COMMAND LIST FOO"), w("COMMAND LIST FILTERBY pattern"),
	w("COMMAND LIST FILTERBY FOO x"), w("COMMAND LIST FILTERBY MODULE x"), w("COMMAND LIST FILTERBY PATTERN ping"),
	w("COMMAND LIST FILTERBY PATTERN client|getn*"), w("COMMAND LIST FILTERBY PATTERN Z*ADD"),
}

var multiScript = []dstep{
	w("EXEC"), w("DISCARD"), w("MULTI"), w("MULTI"), w("SET a 1"), w("FOO"), w("EXEC"),
	w("MULTI"), w("SET a 1"), w("ZADD z 1 a"), w("GET a"), w("ZADD z x a"), w("ZRANGE z 0 -1 WITHSCORES"), w("EXEC"),
	w("MULTI"), w("DISCARD"), w("DISCARD"), w("MULTI"), w("CLIENT SETNAME"), w("DISCARD"),
	w("MULTI"), w("GET"), w("EXEC"), w("MULTI"), w("SELECT 1"), w("SET x 2"), w("EXEC"), w("DBSIZE"),
	w("SELECT 0"), w("DBSIZE"), w("MULTI"), w("EXEC"), w("MULTI"), w("EXPIRE a 100"), w("TTL a"), w("DEL a"),
	w("EXISTS a"), w("EXEC"), w("MULTI"), w("PING"), w("ECHO x"), w("EXEC"),
	w("MULTI"), w("CLIENT FOO"), w("EXEC"), w("MULTI"), w("HELLO 3").as(kindOnly), w("EXEC").as(helloMap),
	w("MULTI"), w("ZADD z 2 b"), w("RESET").as(skipBoth), w("EXEC"), w("ZCARD z"),
}

// TestDifferentialAuth runs the password checks against a Redis that
// has a requirepass.
func TestDifferentialAuth(t *testing.T) {
	addr := startRedis(t, "--requirepass", "sekret")
	s := newSession(t)
	s.e.config = testConfig()
	s.e.config.SetRequirePass("sekret")
	s.c.authenticated = false // as if it connected after the password was set
	d := newDiffer(t, addr, s)
	for _, st := range []dstep{
		w("GET"), w("PING"), w("FOO"), w("GET k"), w("CLIENT GETNAME"), w("HELLO 3"), w("HELLO 3 SETNAME x"),
		w("HELLO 3 AUTH default bad"), w("HELLO 3 AUTH default"), w("AUTH bad"), w("MULTI"), w("QUIT").as(skipBoth),
	} {
		d.step(st)
	}
	d = newDiffer(t, addr, s.another())
	for _, st := range []dstep{
		w("HELLO 3 SETNAME x"), w("AUTH sekret"), w("CLIENT GETNAME"), w("AUTH default bad"), w("PING"),
		w("HELLO 3 SETNAME y z"), w("CLIENT GETNAME"), w("HELLO 3 AUTH default bad SETNAME q"), w("CLIENT GETNAME"),
		w("RESET"), w("PING"), w("HELLO 3 AUTH default sekret SETNAME x").as(helloMap), w("CLIENT GETNAME"),
		w("AUTH foo sekret"), w("AUTH default sekret"), w("AUTH sekret"), w("MULTI"), w("GET"), w("EXEC"),
		w("RESET"), w("MULTI"), w("AUTH sekret"), w("HELLO 2 AUTH default sekret").as(helloMap),
	} {
		d.step(st)
	}
}

// TestDifferentialCommandInfo compares COMMAND INFO and COMMAND DOCS for
// every registered command. Containers are left out: Redis lists
// subcommands geoshard does not have.
func TestDifferentialCommandInfo(t *testing.T) {
	addr := startRedis(t)
	s := newSession(t)
	d := newDiffer(t, addr, s)
	var names []string
	for _, cmd := range sortedCommands(table) {
		if cmd.subcommands == nil {
			names = append(names, cmd.name)
		}
		for _, sub := range sortedCommands(cmd.subcommands) {
			if _, ok := redisMeta[sub.name]; ok { // not CLIENT SETINFO (Redis 7.2)
				names = append(names, sub.name)
			}
		}
	}
	if len(names) < 60 {
		t.Fatalf("only %d commands registered", len(names))
	}
	for _, proto := range []string{"2", "3"} {
		d.step(w("HELLO " + proto).as(helloMap))
		for _, n := range names {
			d.step(wa("COMMAND", "INFO", n))
			d.step(wa("COMMAND", "DOCS", n))
		}
	}
}

// TestDifferentialRandomZset plays seeded random streams of sorted-set
// commands, valid and not, on both servers.
func TestDifferentialRandomZset(t *testing.T) {
	addr := startRedis(t)
	for _, seed := range []int64{1, 2, 3} {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			s := newSession(t)
			d := newDiffer(t, addr, s)
			d.play(randomZsetStream(rand.New(rand.NewSource(seed)), 1500))
		})
	}
}

func randomZsetStream(rng *rand.Rand, n int) []dstep {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	key := func() string { return pick("z1", "z1", "z1", "z1", "z1", "z2", "z2", "s", "nokey") }
	member := func() string { return pick("a", "b", "c", "d", "e", "aa", "ab", "", "a\x00", "\xff", "B", "ba") }
	score := func() string {
		if rng.Intn(30) == 0 {
			return pick("x", "nan", "(1", "", "1e400", " 1")
		}
		return pick("0", "1", "2", "-1", "1.5", "-0", "inf", "-inf", "+inf", "1e10", "0.1", "3", "2.5", "1e-5", "0x10")
	}
	rank := func() string {
		if rng.Intn(30) == 0 {
			return pick("x", "1.5", "")
		}
		return strconv.Itoa(rng.Intn(21) - 10)
	}
	scoreBound := func() string {
		return pick("-inf", "+inf", "inf", "0", "1", "2", "(1", "(2", "1.5", "(1.5", "3", "-1", "(", "(inf", "(-inf", "x")
	}
	lexBound := func() string {
		return pick("-", "+", "[a", "(a", "[b", "(b", "[aa", "[c", "(d", "[", "(", "[\xff", "x", "", "[B")
	}
	opts := func(words ...[]string) []string {
		rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		var out []string
		for _, w := range words {
			out = append(out, w...)
		}
		return out
	}
	var steps []dstep
	for len(steps) < n {
		k := key()
		var args []string
		switch r := rng.Intn(100); {
		case r < 25:
			args = []string{"ZADD", k}
			for _, o := range []string{"NX", "XX", "CH", "GT", "LT", "INCR"} {
				if rng.Intn(8) == 0 {
					args = append(args, o)
				}
			}
			pairs := 1 + rng.Intn(3)
			if rng.Intn(3) == 0 {
				pairs = 1
			}
			for i := 0; i < pairs; i++ {
				args = append(args, score(), member())
			}
		case r < 55:
			var words [][]string
			byScore, byLex := rng.Intn(3) == 0, rng.Intn(4) == 0
			if byScore {
				words = append(words, []string{"BYSCORE"})
			}
			if byLex {
				words = append(words, []string{"BYLEX"})
			}
			if rng.Intn(3) == 0 {
				words = append(words, []string{"REV"})
			}
			if rng.Intn(3) == 0 {
				words = append(words, []string{"WITHSCORES"})
			}
			if (byScore || byLex) && rng.Intn(2) == 0 || rng.Intn(10) == 0 {
				words = append(words, []string{"LIMIT", rank(), rank()})
			}
			var lo, hi string
			switch {
			case byLex && !byScore:
				lo, hi = lexBound(), lexBound()
			case byScore:
				lo, hi = scoreBound(), scoreBound()
			default:
				lo, hi = rank(), rank()
			}
			args = append([]string{"ZRANGE", k, lo, hi}, opts(words...)...)
		case r < 70:
			var words [][]string
			if rng.Intn(2) == 0 {
				words = append(words, []string{"WITHSCORES"})
			}
			if rng.Intn(2) == 0 {
				words = append(words, []string{"LIMIT", rank(), rank()})
			}
			switch rng.Intn(5) {
			case 0:
				args = []string{"ZRANGEBYSCORE", k, scoreBound(), scoreBound()}
			case 1:
				args = []string{"ZREVRANGEBYSCORE", k, scoreBound(), scoreBound()}
			case 2:
				args = []string{"ZRANGEBYLEX", k, lexBound(), lexBound()}
			case 3:
				args = []string{"ZREVRANGEBYLEX", k, lexBound(), lexBound()}
			default:
				args = []string{"ZREVRANGE", k, rank(), rank()}
			}
			args = append(args, opts(words...)...)
		case r < 78:
			args = []string{"ZREM", k, member()}
			if rng.Intn(2) == 0 {
				args = append(args, member())
			}
		case r < 93:
			switch rng.Intn(6) {
			case 0:
				args = []string{"ZSCORE", k, member()}
			case 1:
				args = []string{"ZMSCORE", k, member(), member()}
			case 2:
				args = []string{"ZCARD", k}
			case 3:
				args = []string{"ZRANK", k, member()}
			case 4:
				args = []string{"ZREVRANK", k, member()}
			default:
				args = []string{"ZCOUNT", k, scoreBound(), scoreBound()}
			}
		case r < 96:
			args = []string{"ZINCRBY", k, score(), member()}
		default:
			switch rng.Intn(4) {
			case 0:
				args = []string{"SET", "s", "v"}
			case 1:
				args = []string{"DEL", k}
			case 2:
				args = []string{"EXPIRE", k, "100"}
			default:
				args = []string{"TTL", k}
			}
		}
		steps = append(steps, dstep{args: args})
	}
	return steps
}
