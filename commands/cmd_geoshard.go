package commands

import (
	"strconv"
	"strings"
	"time"
)

// GEOSHARD gathers what geoshard adds to Redis's command set.
func init() {
	register(
		&command{name: "geoshard|ttl", arity: -3, flags: []string{"write", "fast"}, firstKey: 2, lastKey: 2, keyStep: 1, handler: geoshardTTL},
		&command{name: "geoshard|help", arity: 2, flags: []string{"loading", "stale"}, handler: geoshardHelp},
	)
}

// geoshardTTL: GEOSHARD TTL key [seconds|DEFAULT]. The position
// time-to-live of one key: positions not written again within it vanish.
// With no value it answers the TTL in force, in milliseconds (0: never);
// seconds sets the key's own (0: never, whatever the global position-ttl);
// DEFAULT goes back to the global one. It outlives the key's members.
func geoshardTTL(e *Engine, c *Client, args [][]byte) {
	k := c.key(args[2])
	switch len(args) {
	case 3:
		c.W.Int(e.Router().KeyTTL(k).Milliseconds())
		return
	case 4:
	default:
		c.W.Error(errSyntax)
		return
	}
	if eq(args[3], "default") {
		e.Router().SetKeyTTL(k, -1)
		c.W.OK()
		return
	}
	secs, err := strconv.ParseFloat(string(args[3]), 64)
	// NaN passes no comparison, and a positive value under a millisecond
	// would become 0, which means "never": both are refused.
	if err != nil || !(secs == 0 || (secs >= 0.001 && secs <= 1e9)) || strings.ContainsAny(string(args[3]), "_xXpP") {
		c.W.Error("ERR position TTL must be 0 (never) or 0.001 to 1000000000 seconds, or DEFAULT")
		return
	}
	e.Router().SetKeyTTL(k, time.Duration(secs*float64(time.Second)))
	c.W.OK()
}

func geoshardHelp(e *Engine, c *Client, args [][]byte) {
	lines := []string{
		"GEOSHARD <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"TTL <key> [<seconds>|DEFAULT]",
		"    Show (milliseconds) or set the position time-to-live of one geo key.",
		"NODES",
		"    Cluster mode: every member, the leader, and each shard's owner, state and size.",
		"HELP",
		"    Print this help.",
	}
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.Simple(l)
	}
}
