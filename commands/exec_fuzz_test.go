package commands

import (
	"bytes"
	"testing"
)

// FuzzExec runs arbitrary argument lists through the engine: whatever the
// words, it must not panic and must answer exactly one well-formed reply.
func FuzzExec(f *testing.F) {
	seeds := []string{
		"GEOADD k 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
		"GEOSEARCH k FROMLONLAT 15 37 BYRADIUS 200 km ASC COUNT 1 ANY WITHDIST WITHCOORD WITHHASH",
		"GEOSEARCHSTORE d k FROMMEMBER Palermo BYBOX 400 400 km STOREDIST",
		"GEORADIUS k 15 37 inf mi STORE d",
		"GEORADIUSBYMEMBER k Catania 0x10 ft DESC COUNT 2",
		"GEODIST k Palermo Catania km",
		"GEOPOS k Palermo nope",
		"ZADD k GT CH 1e400 m",
		"ZRANGE k (1 +inf BYSCORE REV LIMIT 0 -1 WITHSCORES",
		"MULTI", "EXEC", "SET k v", "EXPIRE k 0", "HELLO 3", "SELECT 15", "RENAME k k2",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	e := testEngine(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		args := bytes.Fields(in)
		if len(args) == 0 || len(args) > 64 {
			return
		}
		c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
		defer e.Close(c)
		e.Exec(c, args)
		if n, err := replyLen(c.W.Buf); err != "" || n != len(c.W.Buf) {
			t.Fatalf("%q answered %q: %s", args, c.W.Buf, err)
		}
	})
}

// replyLen returns the length of the one RESP reply at the start of b.
func replyLen(b []byte) (int, string) {
	end := bytes.Index(b, []byte("\r\n"))
	if len(b) == 0 || end < 0 {
		return 0, "truncated"
	}
	line := string(b[1:end])
	n := 0
	for _, ch := range line {
		if ch >= '0' && ch <= '9' {
			n = n*10 + int(ch-'0')
		}
	}
	neg := len(line) > 0 && line[0] == '-'
	switch b[0] {
	case '+', '-', ':', ',', '_', '#', '(':
		return end + 2, ""
	case '$', '=':
		if neg {
			return end + 2, ""
		}
		total := end + 2 + n + 2
		if total > len(b) {
			return 0, "short bulk"
		}
		return total, ""
	case '*', '~', '%', '>':
		if neg {
			return end + 2, ""
		}
		if b[0] == '%' {
			n *= 2
		}
		at := end + 2
		for range n {
			m, err := replyLen(b[at:])
			if err != "" {
				return 0, err
			}
			at += m
		}
		return at, ""
	}
	return 0, "unknown type " + string(b[0])
}

// A handler that panics answers an error and leaves the engine usable,
// its keyspace lock released.
func TestPanicIsContained(t *testing.T) {
	e := testEngine(t)
	register(&command{name: "test-panic", arity: 1, exclusive: true, handler: func(*Engine, *Client, [][]byte) { panic("boom") }})
	defer delete(table, "test-panic")
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	e.Exec(c, [][]byte{[]byte("test-panic")})
	if got := string(c.W.Buf); got != "-ERR internal error in 'test-panic'\r\n" {
		t.Fatalf("panic answered %q", got)
	}
	c.W.Buf = c.W.Buf[:0]
	e.Exec(c, [][]byte{[]byte("geosearch"), []byte("k"), []byte("fromlonlat"), []byte("15"), []byte("37"),
		[]byte("byradius"), []byte("200"), []byte("km"), []byte("count"), []byte("9223372036854775807")})
	if got := string(c.W.Buf); got != "*0\r\n" {
		t.Fatalf("the engine is not usable after a panic: %q", got)
	}
}

// Dispatch itself costs no allocation: every GEOADD and GEOSEARCH pays it.
func TestDispatchAllocatesNothing(t *testing.T) {
	e := testEngine(t)
	c := e.NewClient("127.0.0.1:1", "127.0.0.1:6379")
	args := [][]byte{[]byte("PING")}
	allocs := testing.AllocsPerRun(100, func() {
		c.W.Buf = c.W.Buf[:0]
		e.Exec(c, args)
	})
	if allocs > 0 {
		t.Fatalf("PING allocates %v times per call", allocs)
	}
}
