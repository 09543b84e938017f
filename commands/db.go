package commands

import (
	"time"

	"geoshard/shard"
)

// db is one logical database's keyspace beyond geo keys: string values and
// the expiry times of keys of any type. Geo keys (sorted sets) live in the
// router. Ordinary commands only read these maps; commands that change
// them are exclusive (Engine.mu), so the maps need no lock of their own.
type db struct {
	strings map[string][]byte
	expires map[string]int64 // unix ms
}

func newDB() *db {
	return &db{strings: make(map[string][]byte), expires: make(map[string]int64)}
}

// kind is what a key holds.
type kind int

const (
	none kind = iota
	kindString
	kindZset
)

func (k kind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindZset:
		return "zset"
	}
	return "none"
}

func nowMS() int64 { return time.Now().UnixMilli() }

// kindOf reports what the key holds in the client's database.
func (e *Engine) kindOf(c *Client, key []byte) kind {
	d := e.dbs[c.db]
	if _, ok := d.strings[string(key)]; ok {
		return kindString
	}
	if e.Router().Card(c.key(key)) > 0 {
		return kindZset
	}
	return none
}

// expired reports whether the key has a TTL that has run out.
func (d *db) expired(key string, now int64) bool {
	at, ok := d.expires[key]
	return ok && at <= now
}

// anyExpired reports whether a key the command names has expired and must
// be deleted before it runs.
func (e *Engine) anyExpired(dbIndex int, cmd *command, args [][]byte) bool {
	d := e.dbs[dbIndex]
	if len(d.expires) == 0 {
		return false
	}
	now := nowMS()
	for _, k := range cmd.keys(args) {
		if d.expired(string(k), now) || e.staleTTL(dbIndex, string(k)) {
			return true
		}
	}
	return false
}

// staleTTL reports a TTL left behind by a key that emptied without a
// command deleting it (its last position expired): a new key of that
// name must not inherit it.
func (e *Engine) staleTTL(dbIndex int, key string) bool {
	d := e.dbs[dbIndex]
	if _, ok := d.expires[key]; !ok {
		return false
	}
	if _, ok := d.strings[key]; ok {
		return false
	}
	return e.Router().Card(shard.Key{DB: dbIndex, Name: key}) == 0
}

// expireKeys deletes the command's keys whose TTL has run out. The caller
// holds the keyspace alone.
func (e *Engine) expireKeys(dbIndex int, cmd *command, args [][]byte) {
	d := e.dbs[dbIndex]
	if len(d.expires) == 0 {
		return
	}
	now := nowMS()
	for _, k := range cmd.keys(args) {
		if d.expired(string(k), now) {
			e.deleteKey(dbIndex, string(k))
		} else if e.staleTTL(dbIndex, string(k)) {
			delete(d.expires, string(k))
		}
	}
}

// deleteKey removes a key of any type and its TTL; the caller holds the
// keyspace alone.
func (e *Engine) deleteKey(dbIndex int, key string) bool {
	d := e.dbs[dbIndex]
	delete(d.expires, key)
	if _, ok := d.strings[key]; ok {
		delete(d.strings, key)
		return true
	}
	return e.Router().Drop(shard.Key{DB: dbIndex, Name: key})
}

// ExpireCycle deletes keys whose TTL has run out, and forgets TTLs of keys
// that no longer exist (a geo key whose last position expired), as Redis's
// active expiry does. It looks under the shared lock first and takes the
// keyspace alone only when something is to go: a cycle with nothing to do
// must not queue behind a slow command (one waiting on a hung cluster
// peer) and hold every other command up behind it.
func (e *Engine) ExpireCycle() {
	type dbKey struct {
		db  int
		key string
	}
	now := nowMS()
	var due, gone []dbKey
	e.mu.RLock()
	for i, d := range e.dbs {
		for k, at := range d.expires {
			if at <= now {
				due = append(due, dbKey{i, k})
			} else if _, ok := d.strings[k]; !ok && e.Router().Card(shard.Key{DB: i, Name: k}) == 0 {
				gone = append(gone, dbKey{i, k})
			}
		}
	}
	e.mu.RUnlock()
	if len(due)+len(gone) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, dk := range due {
		if at, ok := e.dbs[dk.db].expires[dk.key]; ok && at <= now {
			e.deleteKey(dk.db, dk.key)
		}
	}
	for _, dk := range gone {
		d := e.dbs[dk.db]
		if _, ok := d.expires[dk.key]; !ok {
			continue
		}
		if _, ok := d.strings[dk.key]; !ok && e.Router().Card(shard.Key{DB: dk.db, Name: dk.key}) == 0 {
			delete(d.expires, dk.key)
		}
	}
}
