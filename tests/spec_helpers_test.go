package tests

import (
	"strconv"
	"strings"
	"testing"
)

// A specCase is a short script run on a fresh connection after FLUSHALL:
// each step's reply must equal want exactly ("" = set-up, not checked).
type specCase struct {
	name  string
	steps []step
}

type step struct {
	args []string
	want string
}

func do(args ...string) step                  { return step{args: args} }
func expect(want string, args ...string) step { return step{args: args, want: want} }

// Raw reply builders, so tables read like the spec.
func errR(msg string) string { return "-" + msg + "\r\n" }
func intR(n int64) string    { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
func bulk(s string) string   { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func dbl(s string) string    { return "," + s + "\r\n" }
func arr(elems ...string) string {
	return "*" + strconv.Itoa(len(elems)) + "\r\n" + strings.Join(elems, "")
}
func bulks(ss ...string) string {
	e := make([]string, len(ss))
	for i, s := range ss {
		e[i] = bulk(s)
	}
	return arr(e...)
}

const (
	okR       = "+OK\r\n"
	nullBulk  = "$-1\r\n"
	nullArr   = "*-1\r\n"
	null3     = "_\r\n"
	emptyArr  = "*0\r\n"
	syntaxErr = "-ERR syntax error\r\n"
	notFloat  = "-ERR value is not a valid float\r\n"
	notInt    = "-ERR value is not an integer or out of range\r\n"
	badUnit   = "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"
	wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	noMember  = "-ERR could not decode requested zset member\r\n"
	countErr  = "-ERR COUNT must be > 0\r\n"
	anyErr    = "-ERR the ANY argument requires COUNT argument\r\n"
	radiusErr = "-ERR need numeric radius\r\n"
	negRadius = "-ERR radius cannot be negative\r\n"
	negBox    = "-ERR height or width cannot be negative\r\n"
	storeWith = "-ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"
	gssWith   = "-ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"
)

func arity(cmd string) string {
	return errR("ERR wrong number of arguments for '" + cmd + "' command")
}

func pairErr(lonLat string) string {
	return errR("ERR invalid longitude,latitude pair " + lonLat)
}

func fromErr(cmd string) string {
	return errR("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + cmd)
}

func byErr(cmd string) string {
	return errR("ERR exactly one of BYRADIUS and BYBOX can be specified for " + cmd)
}

// Common set-up steps.
var (
	addSicily = do("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	addEdges  = do("GEOADD", "Sicily", "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2")
	setStr    = do("SET", "str", "v")
)

// runSpecCases runs every case against p, each on its own connection.
func runSpecCases(t *testing.T, p *serverProc, cases []specCase) {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			conn := dialRaw(t, p)
			if r := conn.mustDo(t, "FLUSHALL"); string(r) != okR {
				t.Fatalf("FLUSHALL answered %q", r)
			}
			for i, s := range c.steps {
				got, err := conn.do(s.args...)
				if err != nil {
					t.Fatalf("step %d %s: %v", i, quoteCommand(s.args), err)
				}
				if s.want != "" && string(got) != s.want {
					t.Fatalf("step %d: %s\n got: %s\nwant: %s", i, quoteCommand(s.args),
						quoteReply(got, 2000), quoteReply([]byte(s.want), 2000))
				}
			}
		})
	}
}
