package tests

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// limitCases are Redis 7.0.15's limits on a request, captured from
// redis-server: the 64 KiB line limit fires once more than 65,536 bytes
// came with no line end (a line end within the read that passes it still
// ends the line), a count line of any length is read before it is judged.
func limitCases() []protoCase {
	echo := func(n int) string { return "ECHO " + strings.Repeat("a", n-5) }
	bulk := func(n int) string { return "$" + strconv.Itoa(n) + "\r\n" + strings.Repeat("a", n) + "\r\n" }
	return []protoCase{
		{"inline line of 65,536 bytes", echo(65536) + "\r\n", bulk(65531), false},
		{"inline line of 70,000 bytes", echo(70000) + "\r\n", bulk(69995), false},
		// 80 KiB of a 100,000-byte line and no end yet: refused whatever
		// the read sizes. Sent whole, with its end, Redis's answer depends
		// on timing: once its query buffer has grown it reads all that is
		// there, and a read that brings the end with the bytes past 64 KiB
		// ends the line (CI saw redis-server answer `$99995`).
		{"inline line of 100,000 bytes, 80 KiB of it", echo(100000)[:80<<10], "-ERR Protocol error: too big inline request\r\n", true},
		{"inline 65,537 bytes with no end", echo(65537), "-ERR Protocol error: too big inline request\r\n", true},
		{"count line of 65,537 bytes", "*" + strings.Repeat("1", 65536) + "\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
		{"count line with no end", "*" + strings.Repeat("1", 65537), "-ERR Protocol error: too big mbulk count string\r\n", true},
		{"bulk line with no end", "*1\r\n$" + strings.Repeat("1", 65537), "-ERR Protocol error: too big bulk count string\r\n", true},
	}
}

func TestProtocolLimits(t *testing.T) {
	forBothServers(t, func(t *testing.T, p *serverProc) {
		for _, c := range limitCases() {
			t.Run(c.name, func(t *testing.T) { runProtoCase(t, p, c) })
		}
	})
}

// TestProtocolUnauthenticatedLimits: a client that owes AUTH may send
// at most 10 words of at most 16 KiB, as in Redis 7.0.
func TestProtocolUnauthenticatedLimits(t *testing.T) {
	forBothServers(t, func(t *testing.T, p *serverProc) {
		if r := string(dialRaw(t, p).mustDo(t, "CONFIG", "SET", "requirepass", "pw")); r != okR {
			t.Fatalf("CONFIG SET requirepass: %q", r)
		}
		// Read, so the command is looked up: an unknown one is refused
		// before AUTH is asked for.
		unknown := func(name string, args int) string {
			return "-ERR unknown command '" + name + "', with args beginning with: " + strings.Repeat("'a' ", args) + "\r\n"
		}
		for _, c := range []protoCase{
			{"10 words", "*10\r\n" + strings.Repeat("$1\r\na\r\n", 10), unknown("a", 9), false},
			{"11 words", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n", true},
			{"16 KiB", "*1\r\n$16384\r\n" + strings.Repeat("a", 16384) + "\r\n", unknown(strings.Repeat("a", 128), 0), false},
			{"16 KiB and 1", "*1\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n", true},
			{"after AUTH", "AUTH pw\r\n*11\r\n" + strings.Repeat("$1\r\na\r\n", 11), "+OK\r\n" + unknown("a", 10), false},
		} {
			t.Run(c.name, func(t *testing.T) {
				conn, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(10 * time.Second))
				conn.Write([]byte(c.input))
				br := bufio.NewReader(conn)
				var got []byte
				for len(got) < len(c.want) {
					r, err := readReply(br)
					if err != nil {
						t.Fatalf("sent %.60q: got %q, then %v", c.input, got, err)
					}
					got = append(got, r...)
				}
				if string(got) != c.want {
					t.Fatalf("sent %.60q:\n got %q\nwant %q", c.input, got, c.want)
				}
				if c.closed {
					if _, err := readReply(br); !isConnReset(err) {
						t.Fatalf("connection still open after %q: %v", c.want, err)
					}
				}
			})
		}
	})
}

// TestProtocolManyWords: a command of more than 1,048,576 words is
// accepted, as Redis accepts up to 2^31-1: a GEOADD of 349,525 members.
func TestProtocolManyWords(t *testing.T) {
	const members = 349525
	args := []string{"GEOADD", "fleet"}
	for i := range members {
		args = append(args, strconv.FormatFloat(-179+float64(i%3580)/10, 'f', 1, 64),
			strconv.FormatFloat(-80+float64(i/3580)/10, 'f', 1, 64), strconv.Itoa(i))
	}
	// Built without -race: this checks what the protocol accepts, and a
	// race-enabled server takes longer than the reply timeout for it.
	for _, p := range []*serverProc{startRedis(t), startGeoshardPlain(t, "geoshard")} {
		rc := dialRaw(t, p)
		r, err := rc.do(args...)
		if err != nil || string(r) != ":"+strconv.Itoa(members)+"\r\n" {
			t.Fatalf("%s: GEOADD of %d members (%d words): %.200q, %v", p.name, members, len(args), r, err)
		}
		if r := string(rc.mustDo(t, "ZCARD", "fleet")); r != ":"+strconv.Itoa(members)+"\r\n" {
			t.Fatalf("%s: ZCARD: %q", p.name, r)
		}
	}
}
