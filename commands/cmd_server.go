package commands

import (
	"strconv"
	"strings"
	"time"
)

func init() {
	register(
		&command{name: "function|flush", arity: -2, flags: []string{"write", "noscript"}, handler: functionFlush},
		&command{name: "debug", arity: -2, flags: []string{"admin", "noscript", "loading", "stale"}, handler: debug, protected: true},
		&command{name: "time", arity: 1, flags: []string{"loading", "stale", "fast"}, handler: timeCmd, inert: true},
	)
}

// functionFlush: FUNCTION FLUSH [ASYNC|SYNC]. There are no functions;
// test frameworks send it between tests.
func functionFlush(e *Engine, c *Client, args [][]byte) {
	switch {
	case len(args) > 3:
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" +
			truncate(string(cstr(args[1])), 128) + "'. Try FUNCTION HELP.")
	case len(args) == 3 && !optIs(args[2], "sync") && !optIs(args[2], "async"):
		c.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
	default:
		c.W.OK()
	}
}

// maxDebugSleep bounds DEBUG SLEEP, which holds a connection (and, inside
// MULTI, the whole keyspace).
const maxDebugSleep = 10 * time.Second

// debug: DEBUG SLEEP seconds; nothing else of Redis's DEBUG.
func debug(e *Engine, c *Client, args [][]byte) {
	if len(args) != 3 || !optIs(args[1], "sleep") {
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" +
			truncate(string(cstr(args[1])), 128) + "'. Try " +
			strings.ToUpper(string(args[0])) + " HELP.")
		return
	}
	secs, _ := strtodWhole(cstr(args[2]))
	if d := time.Duration(secs * float64(time.Second)); d > 0 {
		time.Sleep(min(d, maxDebugSleep))
	}
	c.W.OK()
}

// timeCmd: TIME
func timeCmd(e *Engine, c *Client, args [][]byte) {
	now := time.Now()
	c.W.Array(2)
	c.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}
