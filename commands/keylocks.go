package commands

// Key locks of cluster mode. A ping (GEOADD), ZADD, ZINCRBY or ZREM of a
// key without a TTL writes on other nodes. It used to hold the keyspace
// lock shared across those calls, and a command that takes the keyspace
// alone (SET, EXPIRE, DEL, RENAME) waits for every shared holder, and
// every command behind it for that one: while a peer hung, before health
// checks found it, a SET of an unrelated key through a healthy node took
// up to the call timeout, and longer behind several (p99 1.9-4.0 s in
// TestClusterWritesHungNode).
//
// Now such a write checks its key's type under the keyspace lock, then
// lets the keyspace go (Engine.geoOnly) and holds only keyLocks across
// its remote calls:
//   - the stripe of each name it writes (kindStripe), shared. A command
//     that takes the keyspace alone and names keys takes their stripes
//     alone first, so it still never runs between a write's type check
//     and its end on a key of the same stripe: a SET cannot store a
//     string beside a geo key a GEOADD through this node is creating, nor
//     a RENAME move a key half written. Writes of other keys go on.
//   - its slot of writing, shared. A command that takes the keyspace
//     alone and names no key (FLUSHALL, EXEC, CONFIG SET, which swaps the
//     router) takes writing alone first: it waits for every write in
//     flight, as it waited for the keyspace before.
//
// A write that takes the keyspace alone and names keys (SET or RENAME
// over a geo key, DEL of a string and a geo key, ZREM from a key with a
// TTL, an expired key's drop) takes its stripes alone and writing's slot
// shared, and lets the keyspace go across each remote call (Engine.outside):
// no write of its names runs meanwhile, nor FLUSHALL, EXEC or CONFIG SET;
// reads and other keys' commands do. It held the keyspace across them,
// and every command through the node, PING included, waited on a hung
// peer (p99 1.4-4.8 s in TestClusterAloneWritesHungNode). FLUSHALL and
// FLUSHDB do so too (command.apart), holding writing alone: reads run
// meanwhile, no write. An EXEC of keyed commands runs each as it runs
// outside MULTI (exec_spread.go); another EXEC holds the keyspace across
// its calls: it is one step.
//
// The order is always writing, then stripes in ascending order, then the
// keyspace: nothing waits in a cycle. A write that turns out to need the
// keyspace alone (aloneIf, an expired key) gives everything back and
// takes it again the exclusive way. In single-node mode nothing here is
// taken: writes make no remote call there.
//
// The kind-lookup generations (kindlookup.go) still order this node's
// writes with lookups made before the lock: a write bumps its stripes
// while it holds them, before it answers.

import (
	"slices"
	"sync"
)

// keyLocks is what writes of cluster mode hold across remote calls.
type keyLocks struct {
	writing keyspaceLock
	stripe  [kindStripes]sync.RWMutex
}

// heldKeys is what a running command took of the engine's keyLocks.
type heldKeys struct {
	stripes []int // ascending, no repeats
	buf     [4]int
	shared  bool // stripes held shared, else alone
	writing bool // writing held: its client's slot if slot, else alone
	slot    bool
	// apart says the command holds the keyspace alone and may let it go
	// across a remote call (Engine.outside): it holds its stripes alone.
	apart bool
	// spread says an EXEC runs its queued commands each as it runs
	// outside MULTI (exec_spread.go).
	spread bool
}

// takeKeys takes, in cluster mode, what a write command holds besides the
// keyspace: shared for one that runs shared, alone for one that takes the
// keyspace alone. The caller holds no keyspace lock yet.
func (e *Engine) takeKeys(c *Client, cmd *command, args [][]byte, shared bool) {
	if !e.Router().Clustered() || cmd.unlocked || (shared && !cmd.write) {
		return
	}
	e.lockKeys(c, keyStripes(c.held.buf[:0], c.db, cmd, args), shared)
}

// lockKeys takes the stripes, shared or alone, after writing: its slot,
// or all of it for a command that runs alone and names no key.
func (e *Engine) lockKeys(c *Client, stripes []int, shared bool) {
	h := &c.held
	h.shared, h.stripes = shared, stripes
	h.writing, h.slot = true, shared || len(h.stripes) > 0
	if h.slot {
		e.keys.writing.RLockSlot(c.slot)
	} else {
		e.keys.writing.Lock()
	}
	for _, s := range h.stripes {
		if shared {
			e.keys.stripe[s].RLock()
		} else {
			e.keys.stripe[s].Lock()
		}
	}
}

// giveKeys releases what takeKeys took.
func (e *Engine) giveKeys(c *Client) {
	h := &c.held
	for i := len(h.stripes) - 1; i >= 0; i-- {
		if h.shared {
			e.keys.stripe[h.stripes[i]].RUnlock()
		} else {
			e.keys.stripe[h.stripes[i]].Unlock()
		}
	}
	if h.writing {
		if h.slot {
			e.keys.writing.RUnlockSlot(c.slot)
		} else {
			e.keys.writing.Unlock()
		}
	}
	*h = heldKeys{}
}

// keyStripes appends the stripes of the names cmd writes
// (command.eachWritten), ascending and each once.
func keyStripes(dst []int, db int, cmd *command, args [][]byte) []int {
	cmd.eachWritten(args, func(name []byte) {
		s := kindStripe(db, name)
		if i, found := slices.BinarySearch(dst, s); !found {
			dst = slices.Insert(dst, i, s)
		}
	})
	return dst
}

// letGoMaps lets the keyspace go when the running command holds it
// shared, and reports whether it did. DEL and the searches that STORE run
// shared only in cluster mode, when none of their names is a string or
// has a TTL here (mapsAlone): what they delete then is geo keys alone
// (dropGeo), on other nodes, with no map to read or change.
func (e *Engine) letGoMaps(c *Client) bool {
	if !c.shared {
		return false
	}
	e.letGo(c)
	return true
}

// outside runs call, a remote call of the running command, with the
// keyspace let go, and holds it again after, as the command held it: alone
// if it may let it go (heldKeys.apart), or shared in cluster mode (a
// command asking whether its key with a TTL still exists, staleTTL, before
// it knows whether it must run alone: a write then holds its stripes
// shared; a read changes no map). The caller reads no string or TTL map
// in call, and reads again after it whatever it read before and another
// command may change meanwhile: a read may run, or a command on a key of
// another stripe.
func (e *Engine) outside(c *Client, call func()) {
	switch {
	case c == nil:
	case c.held.apart:
		e.mu.Unlock()
		defer e.mu.Lock()
	case c.shared && e.Router().Clustered():
		e.mu.RUnlockSlot(c.slot)
		defer e.mu.RLockSlot(c.slot)
	}
	call()
}
