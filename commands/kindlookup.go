package commands

// Key-kind lookups in cluster mode. Whether a name holds a geo key is a
// question for every node (Router.TryExists), and while a node hangs, before
// health checks find it, the question waits out the 1 s call timeout.
// SET, GET, TYPE, EXISTS, RENAME, the EXPIRE and TTL families and PERSIST
// ask it; they used to ask under the keyspace lock (SET, RENAME, EXPIRE
// and PERSIST with the keyspace held alone), so every command through the
// node, PING too, waited for the hung peer (PING p99 1.96-2.00 s in
// TestClusterKindLookupHungNode). Now their prepare step asks before the
// lock (prepareKinds) and leaves the answers in the client, and tryKindOf,
// under the lock, uses them.
//
// An answer is used only if no command through this node that could have
// created, deleted or renamed a key of that name ran between the question
// and the lock: a SET must never store a string beside a geo key a
// GEOADD through the same node created meanwhile. A lookup counts itself
// pending, then reads the generation of its name's stripe, then asks. A
// write through this node, done and still under its keyspace lock, bumps
// its keys' stripes, but only while some lookup is pending, so that a
// GEOADD pays one atomic load when nobody asks. A write that saw nothing
// pending was done before the lookup counted itself, so the answer
// includes it; one that the answer may miss bumps after the generation
// was read, and the handler, which takes the lock after that write let it
// go, sees a new generation and asks again under the lock (as before, up
// to the call timeout; it takes a write through this node to a name of
// the same stripe, 1 in 1,024, in the lookup's window). Writes through
// other nodes are not ordered with this node's commands anyway.
//
// In single-node mode the prepare step is not called (command.clusterOnly;
// inside EXEC it returns at once): Card is local there, and tryKindOf asks
// it under the lock as it always did.

import (
	"sync/atomic"

	"geoshard/shard"
)

// kindStripes is how many generations names hash to.
const kindStripes = 1024

// kindLookups orders key-kind lookups made before the keyspace lock with
// the writes through this node.
type kindLookups struct {
	pending atomic.Int64 // lookups whose command has not finished
	_       [56]byte     // pending is read by every write: its own line
	// epoch changes with every command that may change keys it does not
	// name (FLUSHALL): every answer asked before is stale.
	epoch atomic.Uint64
	gen   [kindStripes]atomic.Uint64
}

// kindStripe returns the stripe of a name of database db (FNV-1a: a
// collision costs a lookup asked again, nothing else).
func kindStripe[T string | []byte](db int, name T) int {
	h := uint32(2166136261) ^ uint32(db)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return int(h % kindStripes)
}

// touch records that a command changed, or may have changed, a key of
// this stripe (kindStripe); the caller still holds the keyspace lock it
// wrote under.
func (l *kindLookups) touch(stripe int) { l.gen[stripe].Add(1) }

// wrote records a write command's keys once it ran under the shared lock
// (command.eachWritten); one that names no key may have written any.
func (l *kindLookups) wrote(db int, cmd *command, args [][]byte) {
	if l.pending.Load() == 0 {
		return
	}
	if cmd.firstKey <= 0 {
		l.epoch.Add(1)
		return
	}
	cmd.eachWritten(args, func(name []byte) { l.touch(kindStripe(db, name)) })
}

// ranAlone records a command that ran with the keyspace held alone. Some
// of those write keys their key positions do not name (GEORADIUS ...
// STORE dest), so every argument counts as a key, and a write that names
// none may have changed any (FLUSHALL). Other commands that name no key
// change none: EXEC (its queued commands count one by one), CONFIG SET
// (a region map reload moves members, it does not add or drop keys),
// PING or SELECT inside EXEC.
func (l *kindLookups) ranAlone(db int, cmd *command, args [][]byte) {
	if l.pending.Load() == 0 {
		return
	}
	if cmd.firstKey <= 0 {
		if cmd.write {
			l.epoch.Add(1)
		}
		return
	}
	l.touchArgs(db, args)
}

// touchArgs touches the stripe of every argument, as if each were a key.
func (l *kindLookups) touchArgs(db int, args [][]byte) {
	for _, a := range args[1:] {
		l.touch(kindStripe(db, a))
	}
}

// kindAnswer is one name's lookup made before the lock.
type kindAnswer struct {
	db   int
	name string
	gen  uint64 // of the name's stripe, read before asking
	geo  bool   // a node that answered holds a member
	err  error  // none does, and some node did not answer
}

// kindAnswers is what a command's prepare step leaves in Client.prepared.
type kindAnswers struct {
	epoch uint64
	list  []kindAnswer
}

// kindPrepare returns the prepare step of a command that asks the kind
// of its keys args[first..last] (last -1: to the end).
func kindPrepare(first, last int) func(e *Engine, c *Client, args [][]byte) {
	return func(e *Engine, c *Client, args [][]byte) {
		if !e.Router().Clustered() {
			return // Card is local: tryKindOf asks it under the lock
		}
		end := last
		if end < 0 {
			end += len(args)
		}
		if first < len(args) {
			e.prepareKinds(c, args[first:min(end, len(args)-1)+1])
		}
	}
}

// prepareKinds asks, with no keyspace lock held, whether a geo key has
// each of the names that is not a string, and leaves the answers in
// c.prepared. Cluster mode only.
func (e *Engine) prepareKinds(c *Client, names [][]byte) {
	r := e.Router()
	if len(names) == 0 {
		return
	}
	// A string's kind is known here: asking the cluster about it would
	// cost GETs of strings a remote call they never made.
	var small [8]bool
	ask, asking := small[:0], false
	if len(names) > len(small) {
		ask = make([]bool, 0, len(names))
	}
	e.mu.RLockSlot(c.slot)
	d := e.dbs[c.db]
	for _, name := range names {
		_, str := d.strings[string(name)]
		ask, asking = append(ask, !str), asking || !str
	}
	e.mu.RUnlockSlot(c.slot)
	if !asking {
		return
	}
	e.kinds.pending.Add(1) // before the generations are read: see above
	c.kindLookups++
	ans := &kindAnswers{epoch: e.kinds.epoch.Load()}
	for i, name := range names {
		if !ask[i] || ans.find(c.db, name) != nil {
			continue
		}
		a := kindAnswer{db: c.db, name: string(name), gen: e.kinds.gen[kindStripe(c.db, name)].Load()}
		a.geo, a.err = r.TryExists(shard.Key{DB: a.db, Name: a.name})
		ans.list = append(ans.list, a)
	}
	c.prepared = ans
}

func (a *kindAnswers) find(db int, name []byte) *kindAnswer {
	for i := range a.list {
		if a.list[i].db == db && a.list[i].name == string(name) {
			return &a.list[i]
		}
	}
	return nil
}

// preparedGeo returns the prepare step's answer for a key of the
// client's database (whether a geo key has the name) if it is still good:
// no command through this node changed a key of its stripe since it was
// asked. The caller holds the keyspace lock.
func (e *Engine) preparedGeo(c *Client, key []byte) (geo bool, err error, ok bool) {
	ans, _ := c.prepared.(*kindAnswers)
	if ans == nil || ans.epoch != e.kinds.epoch.Load() {
		return false, nil, false
	}
	a := ans.find(c.db, key)
	if a == nil || a.gen != e.kinds.gen[kindStripe(c.db, key)].Load() {
		return false, nil, false
	}
	return a.geo, a.err, true
}

// geoExists reports whether a geo key has the name (key, of the client's
// database): the prepare step's answer while it is good, else the
// cluster's (the router's, in a single node) asked now, outside the
// keyspace if the command may let it go (Engine.outside).
func (e *Engine) geoExists(c *Client, key []byte) (geo bool, err error) {
	if geo, err, ok := e.preparedGeo(c, key); ok {
		return geo, err
	}
	e.outside(c, func() { geo, err = e.Router().TryExists(c.key(key)) })
	return geo, err
}

// unprepare forgets what the command's prepare step left, once the
// command is done and the keyspace lock released, and ends its lookups.
func (e *Engine) unprepare(c *Client) {
	c.prepared = nil
	if c.kindLookups != 0 {
		e.kinds.pending.Add(-c.kindLookups)
		c.kindLookups = 0
	}
}

// The prepare steps of commands that ask their keys' kind: of the first
// key, of the first two (RENAME), of every key (EXISTS).
var (
	kindOfFirst = kindPrepare(1, 1)
	kindOfTwo   = kindPrepare(1, 2)
	kindOfAll   = kindPrepare(1, -1)
)
