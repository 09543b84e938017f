package commands

// Key expiry and deletes of geo keys in cluster mode. A geo key's drop
// may be refused there (a holder of one of its shards is away:
// router/away_deletes.go) or not reach every node. Before, SET over a
// geo key and key expiry used Router.Drop, which cannot report that, and
// carried on: SET left the key both a string and a geo key (the away
// node kept the members, and showed them again once promoted), and an
// expired key lost its TTL while its members stayed, so it never
// expired. Now such a drop fails the command with -TRYAGAIN and changes
// nothing of the engine's; an expired key keeps its TTL, so the next
// cycle or the next command naming it tries again, and until then every
// command naming it answers -TRYAGAIN instead of serving it.
//
// The active cycle drops a due geo key with no keyspace lock held, in a
// goroutine of its own: the drop calls other nodes, and a refused or hung
// one would otherwise hold every command behind the lock ten times a
// second (the cycle retries), or stall the expiry of every other key.
// While the drop runs the key is marked expiring: a command naming it
// answers -TRYAGAIN rather than write a member the drop might then
// delete.

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// errExpiring is a command naming a key whose expiry is in flight.
var errExpiring = errors.New("the key's expiry is being sent to the cluster; try again")

// dbKey names a key of one database.
type dbKey struct {
	db  int
	key string
}

// expiringSet holds the keys whose drop the expiry cycle is sending, with
// how many drops of each are in flight (the cycle starts one per key, but
// ExpireCycle is exported and may run side by side).
type expiringSet struct {
	n  atomic.Int32 // len(m): lets the hot path skip the mutex
	mu sync.Mutex
	m  map[dbKey]int
}

// any reports whether some key's expiry is in flight.
func (s *expiringSet) any() bool { return s.n.Load() > 0 }

// count is how many keys' expiry is in flight.
func (s *expiringSet) count() int { return int(s.n.Load()) }

// has reports whether key's expiry is in flight.
func (s *expiringSet) has(db int, key string) bool {
	if !s.any() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[dbKey{db, key}]
	return ok
}

func (s *expiringSet) add(k dbKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[dbKey]int)
	}
	s.m[k]++
	s.n.Store(int32(len(s.m)))
}

func (s *expiringSet) remove(k dbKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[k]--; s.m[k] <= 0 {
		delete(s.m, k)
	}
	s.n.Store(int32(len(s.m)))
}

// dropGeo drops a geo key on every node that holds it. In cluster mode it
// fails, changing nothing here, when the drop is refused or some node
// could not be reached, or the key's expiry is in flight. The drop runs
// outside the keyspace when c (nil for no client's work) may let it go.
func (e *Engine) dropGeo(c *Client, dbIndex int, key string) (existed bool, err error) {
	r := e.Router()
	if !r.Clustered() {
		return r.Drop(shard.Key{DB: dbIndex, Name: key}), nil
	}
	if e.expiring.has(dbIndex, key) {
		return false, errExpiring
	}
	e.outside(c, func() { existed, err = r.TryDrop(shard.Key{DB: dbIndex, Name: key}) })
	return existed, err
}

// maxExpiring bounds the geo key drops the expiry cycle has in flight.
const maxExpiring = 16

// ExpireCycle deletes keys whose TTL has run out, and forgets TTLs of keys
// that no longer exist (a geo key whose last position expired), as Redis's
// active expiry does. It looks under the shared lock first and takes the
// keyspace alone only when something is to go: a cycle with nothing to do
// must not queue behind a slow command (one waiting on a hung cluster
// peer) and hold every other command up behind it. In cluster mode it
// makes no remote call itself: due geo keys are dropped by goroutines of
// their own (expireGeo; a drop sent to a hung node waits out its call
// deadlines, two of them, and must not stall the other keys' expiry),
// and a gone key's TTL is left to come due (telling gone would count the
// key on every node, under the lock, ten times a second; a command naming
// the key forgets it first: staleTTL).
func (e *Engine) ExpireCycle() {
	now := nowMS()
	clustered := e.Router().Clustered()
	var due, gone []dbKey
	e.mu.RLock()
	for i, d := range e.dbs {
		for k, at := range d.expires {
			if at <= now {
				due = append(due, dbKey{i, k})
			} else if _, ok := d.strings[k]; !ok && !clustered && e.Router().Card(shard.Key{DB: i, Name: k}) == 0 {
				gone = append(gone, dbKey{i, k})
			}
		}
	}
	e.mu.RUnlock()
	if len(due)+len(gone) == 0 {
		return
	}
	for _, dk := range e.expireLocked(due, gone, now) {
		if e.expiring.count() >= maxExpiring {
			break // the next cycle starts the rest
		}
		if e.expiring.has(dk.db, dk.key) {
			continue // its drop is still in flight
		}
		e.expiring.add(dk) // before the goroutine: the next cycle sees it
		go e.expireGeo(dk)
	}
}

// expireLocked deletes, with the keyspace alone, the due keys that need
// no remote call (strings; every key in single-node mode) and the TTLs
// of keys that are gone; it returns the due geo keys of cluster mode.
func (e *Engine) expireLocked(due, gone []dbKey, now int64) (remote []dbKey) {
	clustered := e.Router().Clustered()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, dk := range due {
		d := e.dbs[dk.db]
		if at, ok := d.expires[dk.key]; !ok || at > now {
			continue
		}
		if _, str := d.strings[dk.key]; clustered && !str {
			remote = append(remote, dk)
			continue
		}
		_, _ = e.deleteKey(nil, dk.db, dk.key) // a string, or single-node: cannot fail
	}
	for _, dk := range gone { // single-node mode only
		d := e.dbs[dk.db]
		if _, ok := d.expires[dk.key]; !ok {
			continue
		}
		if _, ok := d.strings[dk.key]; !ok && e.Router().Card(shard.Key{DB: dk.db, Name: dk.key}) == 0 {
			delete(d.expires, dk.key)
		}
	}
	return remote
}

// expireGeo drops a due geo key of cluster mode, marked expiring by the
// caller, with no keyspace lock held across the remote calls, and forgets
// its TTL once every node dropped it; a refused drop keeps the TTL for
// the next try.
func (e *Engine) expireGeo(dk dbKey) {
	defer e.expiring.remove(dk)
	// Marked first, then checked: a command that expired (or replaced)
	// the key meanwhile left no due TTL, and one that comes after the
	// mark answers -TRYAGAIN, so the drop cannot delete a newer key.
	e.mu.RLock()
	at, ok := e.dbs[dk.db].expires[dk.key]
	_, str := e.dbs[dk.db].strings[dk.key]
	e.mu.RUnlock()
	if !ok || str || at > nowMS() {
		return
	}
	_, err := e.Router().TryDrop(shard.Key{DB: dk.db, Name: dk.key})
	e.kinds.touch(kindStripe(dk.db, dk.key)) // a kind asked meanwhile may be stale
	if err != nil {
		slog.Debug("expired key not deleted; its TTL stays and the next cycle tries again", "db", dk.db, "key", dk.key, "err", err)
		return
	}
	e.mu.Lock()
	if cur, ok := e.dbs[dk.db].expires[dk.key]; ok && cur == at {
		delete(e.dbs[dk.db].expires, dk.key)
	}
	e.mu.Unlock()
}
