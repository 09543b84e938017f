package commands

import (
	"slices"
	"strings"
)

// command describes one Redis command: how to check it, how COMMAND
// reports it, and what runs it.
type command struct {
	name      string // lower case; subcommands "parent|sub"
	arity     int    // Redis's convention: n exact, -n at least n words
	flags     []string
	exclusive bool // needs the keyspace alone (see Engine.mu)
	// apart: though it names no key, in cluster mode it may let the
	// keyspace go across its remote calls (Engine.outside), as a command
	// that names keys does: it holds writing alone, so no write runs
	// meanwhile, only reads (FLUSHALL, FLUSHDB).
	apart bool
	// aloneIf, checked under the shared lock (so what it reads holds
	// while the command runs shared), makes the command exclusive when it
	// says so: ZREM only where it may drop a key's TTL, ZINCRBY only in a
	// single node, GEORADIUS only with STORE, DEL and STORE in cluster
	// mode only for a string or a key with a TTL (mapsAlone). In cluster mode such a command makes remote calls,
	// and with the keyspace alone every command on the node would wait
	// for them.
	aloneIf func(e *Engine, c *Client, args [][]byte) bool
	noAuth  bool // allowed before AUTH
	// prepare, if set, runs before the keyspace lock is taken and leaves
	// its result in Client.prepared for the handler (CONFIG SET reads a
	// region map file there).
	prepare func(e *Engine, c *Client, args [][]byte)
	// clusterOnly: prepare has nothing to do in single-node mode (a
	// key-kind lookup), where the command then does not call it.
	clusterOnly bool
	write       bool // Redis flags it "write": what it changes counts for saves
	// unlocked: runs without the keyspace lock (it touches no key).
	unlocked bool
	// inert: names no key and touches neither the keyspace nor the
	// client's database (PING, ECHO, TIME): a spread EXEC runs it in its
	// queue like a command that names keys (exec_spread.go).
	inert bool
	// protected: refused unless enable-debug-command allows it (DEBUG).
	protected bool
	// Key positions as COMMAND reports them: first, last (-1: to the
	// end), step; 0 when the command takes no key.
	firstKey, lastKey, keyStep int
	handler                    func(e *Engine, c *Client, args [][]byte)
	subcommands                map[string]*command
}

func (c *command) fullName() string { return c.name }

// hasFlag reports whether Redis flags the command so ("write", "denyoom"...).
func (c *command) hasFlag(flag string) bool { return slices.Contains(c.flags, flag) }

// table holds every command; each cmd_*.go file registers its own in
// init, and nothing changes it afterwards.
var table = map[string]*command{}

func register(cmds ...*command) {
	for _, c := range cmds {
		c.write = c.hasFlag("write")
		if parent, sub, ok := strings.Cut(c.name, "|"); ok {
			p := table[parent]
			if p == nil {
				p = &command{name: parent, arity: -2, subcommands: map[string]*command{}}
				table[parent] = p
			}
			if p.subcommands == nil {
				p.subcommands = map[string]*command{}
			}
			p.subcommands[sub] = c
			continue
		}
		if old := table[c.name]; old != nil && old.subcommands != nil {
			c.subcommands = old.subcommands
		}
		table[c.name] = c
	}
}

// keys returns the key arguments of a command, by its key positions.
func (c *command) keys(args [][]byte) [][]byte {
	var out [][]byte
	c.eachKey(args, func(k []byte) { out = append(out, k) })
	return out
}

// eachKey calls f with each key argument of a command, by its key
// positions.
func (c *command) eachKey(args [][]byte, f func(name []byte)) {
	if c.firstKey <= 0 {
		return
	}
	last := c.lastKey
	if last < 0 {
		last += len(args)
	}
	for i := c.firstKey; i <= min(last, len(args)-1); i += max(c.keyStep, 1) {
		f(args[i])
	}
}

// eachWritten calls f with each name a write command may write: those of
// its key positions, except for a command that runs shared only in
// cluster mode (aloneIf), for which every argument counts: GEORADIUS ...
// STORE dest does not name dest in its key positions.
func (c *command) eachWritten(args [][]byte, f func(name []byte)) {
	if c.aloneIf == nil {
		c.eachKey(args, f)
		return
	}
	for _, a := range args[1:] {
		f(a)
	}
}
