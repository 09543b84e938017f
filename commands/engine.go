// Package commands is geoshard's Redis command surface: it parses each
// command, applies Redis 7.0's semantics on top of the router, and writes
// the reply byte for byte as Redis would.
package commands

import (
	"log/slog"
	rdebug "runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/router"
	"geoshard/shard"
)

// Databases is how many logical databases SELECT can choose from.
const Databases = 16

// Engine executes commands for every client of a server.
type Engine struct {
	// router is swapped whole when the region map is reloaded
	// (SwapRouter), with the keyspace held alone.
	router atomic.Pointer[router.Router]
	config *Config
	start  time.Time

	// mu lets ordinary commands run side by side (they touch members,
	// which the router keeps consistent) and gives commands that change
	// whole keys (DEL, RENAME, EXPIRE, SET, STORE, EXEC...) the keyspace
	// alone, which is what makes them atomic as in Redis.
	mu  keyspaceLock // spread.go: each slot on its own cache line
	dbs [Databases]*db

	clients  clientList
	counters counters
	// dirty counts changes (elements, as Redis's server.dirty) since the
	// start; the save schedule compares it with its value at the last save.
	dirty   slotCounter
	persist persistence // snapshot.go
	hits    hitPool     // cmd_geosearch.go
	// expiring holds the geo keys whose expiry the cycle is sending to
	// the cluster (expire_cycle.go).
	expiring expiringSet
	// kinds orders key-kind lookups asked before the lock with the
	// writes through this node (kindlookup.go).
	kinds kindLookups
	// keys is what cluster-mode writes hold across remote calls instead
	// of the keyspace (keylocks.go).
	keys keyLocks
}

// New returns an engine on top of a router.
func New(r *router.Router, cfg *Config) *Engine {
	e := &Engine{config: cfg, start: time.Now()}
	e.router.Store(r)
	for i := range e.dbs {
		e.dbs[i] = newDB()
	}
	e.clients.byID = make(map[int64]*Client)
	return e
}

// Router returns the router the engine runs on.
func (e *Engine) Router() *router.Router { return e.router.Load() }

// SwapRouter replaces the router with the one build makes from it: how a
// new region map takes over. The caller holds the keyspace alone (CONFIG
// SET is exclusive), so no command runs on either router meanwhile.
func (e *Engine) SwapRouter(build func(old *router.Router) (*router.Router, error)) error {
	r, err := build(e.router.Load())
	if err != nil {
		return err
	}
	e.router.Store(r)
	return nil
}

type counters struct {
	commands    slotCounter // written by every command (spread.go)
	connections atomic.Int64
	rejected    atomic.Int64
	perCommand  sync.Map // name -> *commandStat
	// statGen changes when CONFIG RESETSTAT forgets perCommand, so that
	// clients drop the commandStat they cached (Client.statOf).
	statGen atomic.Int64
}

// statOf returns cmd's counters. The client keeps the last ones it used,
// because a connection mostly repeats one command (a dispatcher's pings):
// that saves a sync.Map lookup per command.
func (c *Client) statOf(e *Engine, cmd *command) *commandStat {
	gen := e.counters.statGen.Load()
	if c.statCmd != cmd || c.statGen != gen || c.stat == nil {
		c.statCmd, c.statGen, c.stat = cmd, gen, e.stat(cmd.fullName())
	}
	return c.stat
}

func (e *Engine) stat(name string) *commandStat {
	if s, ok := e.counters.perCommand.Load(name); ok {
		return s.(*commandStat)
	}
	s, _ := e.counters.perCommand.LoadOrStore(name, new(commandStat))
	return s.(*commandStat)
}

// Exec runs one command for the client and queues its reply in c.W.
func (e *Engine) Exec(c *Client, args [][]byte) {
	// Names are lowered into a stack buffer: looking a map up by
	// string(bytes) costs no allocation, and this runs for every command.
	var buf [32]byte
	cmd := table[string(lower(buf[:0], args[0]))]
	if cmd != nil && cmd.subcommands != nil && len(args) > 1 {
		if sub := cmd.subcommands[string(lower(buf[:0], args[1]))]; sub != nil {
			cmd = sub
		}
	}
	if cmd != nil && c.lastCmd.Load() != cmd {
		c.lastCmd.Store(cmd) // as Redis's lastcmd: set once the command is known
	}
	if c.multi != nil && (cmd == nil || !isMultiControl(cmd.name)) {
		e.queue(c, cmd, args)
		return
	}
	if err := e.check(c, cmd, args); err != "" {
		if cmd != nil && cmd.name == "exec" {
			// Redis's execCommandAbort: a refused EXEC discards the
			// transaction and says why.
			c.endMulti()
			c.W.Error("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(err, "ERR "))
			return
		}
		c.W.Error(err)
		return
	}
	e.run(c, cmd, args)
}

// errDebugNotAllowed is Redis 7.0's refusal of DEBUG under its default
// enable-debug-command no.
const errDebugNotAllowed = `ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`

// check returns the error Redis gives before running a command at all.
func (e *Engine) check(c *Client, cmd *command, args [][]byte) string {
	if cmd == nil {
		return unknownCommand(args)
	}
	if cmd.subcommands != nil && len(args) > 1 && cmd.handler == nil {
		return "ERR unknown subcommand '" + truncate(string(args[1]), 128) +
			"'. Try " + strings.ToUpper(cmd.name) + " HELP."
	}
	if n := len(args); (cmd.arity > 0 && n != cmd.arity) || n < -cmd.arity {
		return "ERR wrong number of arguments for '" + cmd.fullName() + "' command"
	}
	if cmd.protected && !e.config.debugAllowed(c) {
		return errDebugNotAllowed
	}
	if !c.authenticated && e.config.RequirePass() != "" && !cmd.noAuth {
		return "NOAUTH Authentication required."
	}
	if e.overMemory(cmd) {
		return errOOM
	}
	if c.multi != nil && slices.Contains(cmd.flags, "no_multi") {
		return "ERR Command not allowed inside a transaction"
	}
	return ""
}

// run executes a checked command under the keyspace lock it needs.
func (e *Engine) run(c *Client, cmd *command, args [][]byte) {
	e.counters.commands.Add(c.slot, 1)
	st := c.statOf(e, cmd)
	begin := time.Now()
	before := len(c.W.Buf)
	if cmd.prepare != nil && (!cmd.clusterOnly || e.Router().Clustered()) {
		cmd.prepare(e, c, args)
		if c.prepared != nil || c.kindLookups != 0 {
			defer e.unprepare(c)
		}
	}
	switch {
	case cmd.unlocked:
		e.guarded(c, cmd, args, before)
	case cmd.exclusive && e.spreads(c, cmd):
		e.runSpread(c, cmd, args, before) // exec_spread.go
	case cmd.exclusive:
		e.runExclusive(c, cmd, args, before)
	default:
		e.takeKeys(c, cmd, args, true) // keylocks.go
		ran := e.tryShared(c, cmd, args, before)
		e.giveKeys(c)
		if !ran {
			e.runExclusive(c, cmd, args, before)
		}
	}
	took := time.Since(begin) // one clock read for INFO and /metrics alike
	st.add(c.slot, took.Microseconds(), len(c.W.Buf) > before && c.W.Buf[before] == '-')
	e.observe(cmd.fullName(), took)
}

// tryShared runs cmd with the client's slot of the keyspace shared and
// reports whether it did: not when a key it names has expired or aloneIf
// says it must run alone (then it holds nothing on return).
func (e *Engine) tryShared(c *Client, cmd *command, args [][]byte, before int) bool {
	e.mu.RLockSlot(c.slot)
	c.shared = true
	if e.anyExpired(c, cmd, args) || cmd.aloneIf != nil && cmd.aloneIf(e, c, args) {
		e.letGo(c)
		return false
	}
	e.guarded(c, cmd, args, before)
	if cmd.write && e.kinds.pending.Load() != 0 { // kindlookup.go
		e.kinds.wrote(c.db, cmd, args)
	}
	e.letGo(c)
	return true
}

// letGo releases the keyspace the running command holds shared, at the
// latest when it ends; a read or a write of members calls it (geoOnly)
// before its remote calls, after which it reads no string or TTL map.
// Held across them, the slot kept a command that takes the keyspace alone
// (SET, EXPIRE) and every command after it waiting on a hung peer: SET
// p99 2.1 s through a healthy node while clients searched
// (TestClusterReadsHungNode). Under the keyspace held alone (EXEC,
// runExclusive) it does nothing.
func (e *Engine) letGo(c *Client) {
	if c.shared {
		c.shared = false
		e.mu.RUnlockSlot(c.slot)
	}
}

// geoOnly answers WRONGTYPE and returns false when name is a string;
// else, in cluster mode, it lets the keyspace go (letGo): the caller reads
// or writes the geo key alone from now on, on other nodes too, and reads
// no string or TTL map. A write still holds its names' key stripes
// (keylocks.go).
func (e *Engine) geoOnly(c *Client, name []byte) bool {
	if e.isString(c, name) {
		c.W.Error(errWrongType)
		return false
	}
	if e.Router().Clustered() {
		e.letGo(c)
	}
	return true
}

func (e *Engine) runExclusive(c *Client, cmd *command, args [][]byte, before int) {
	e.takeKeys(c, cmd, args, false) // keylocks.go
	defer e.giveKeys(c)
	e.mu.Lock()
	defer e.mu.Unlock()
	c.held.apart = c.held.writing && (len(c.held.stripes) > 0 || cmd.apart) // Engine.outside
	defer e.kinds.ranAlone(c.db, cmd, args)                                 // before the unlock
	if tryAgain(c, e.expireKeys(c, cmd, args)) {
		return // cluster mode: an expired key is not served as alive
	}
	e.guarded(c, cmd, args, before)
}

// guarded runs the handler; a bug that panics on some input costs that
// command an error reply, not the server (and not the keyspace lock).
func (e *Engine) guarded(c *Client, cmd *command, args [][]byte, before int) {
	defer func() {
		if p := recover(); p != nil {
			c.W.Buf = c.W.Buf[:before]
			c.W.Error("ERR internal error in '" + cmd.fullName() + "'")
			slog.Error("command panicked", "command", cmd.fullName(), "args", len(args), "panic", p, "stack", string(rdebug.Stack()))
		}
	}()
	c.changes, c.counted = 0, false
	cmd.handler(e, c, args)
	if cmd.write {
		n := c.changes
		if !c.counted && !(len(c.W.Buf) > before && c.W.Buf[before] == '-') {
			n = 1 // a write that does not count its elements counts once
		}
		if n > 0 {
			e.dirty.Add(c.slot, n)
		}
	}
}

// runLocked executes a command whose caller already holds the keyspace
// alone (EXEC).
func (e *Engine) runLocked(c *Client, cmd *command, args [][]byte) {
	e.counters.commands.Add(c.slot, 1)
	if cmd.write || cmd.exclusive {
		// A read changes no key: queued after it, a command's answer
		// from before the lock stays good.
		defer e.kinds.ranAlone(c.db, cmd, args)
	}
	if tryAgain(c, e.expireKeys(c, cmd, args)) {
		return // cluster mode: an expired key is not served as alive
	}
	e.guarded(c, cmd, args, len(c.W.Buf))
}

func unknownCommand(args [][]byte) string {
	// As Redis builds it: at most about 128 bytes of the arguments.
	var list []byte
	for _, a := range args[1:] {
		if len(list) >= 128 {
			break
		}
		list = append(list, '\'')
		list = append(list, truncate(string(a), 128-len(list))...)
		list = append(list, "' "...)
	}
	return "ERR unknown command '" + truncate(string(args[0]), 128) +
		"', with args beginning with: " + string(list)
}

// truncate cuts s to n bytes and at its first NUL, as C's "%.*s" does in
// Redis's messages.
func truncate(s string, n int) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// key names a key of the client's database for the router.
func (c *Client) key(name []byte) shard.Key { return shard.Key{DB: c.db, Name: string(name)} }

// lower appends b in lower case (ASCII) to dst.
func lower(dst, b []byte) []byte {
	for _, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		dst = append(dst, ch)
	}
	return dst
}
