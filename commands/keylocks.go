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
	shared  bool // stripes held shared (and writing's slot), else alone
	writing bool // writing held: its client's slot if shared, else alone
}

// takeKeys takes, in cluster mode, what a write command holds besides the
// keyspace: shared for one that runs shared, alone for one that takes the
// keyspace alone. The caller holds no keyspace lock yet.
func (e *Engine) takeKeys(c *Client, cmd *command, args [][]byte, shared bool) {
	h := &c.held
	if !e.Router().Clustered() || cmd.unlocked || (shared && !cmd.write) {
		return
	}
	h.shared = shared
	h.stripes = keyStripes(h.buf[:0], c.db, cmd, args)
	if len(h.stripes) == 0 || shared {
		h.writing = true
		if shared {
			e.keys.writing.RLockSlot(c.slot)
		} else {
			e.keys.writing.Lock()
		}
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
		if h.shared {
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
