package commands

import (
	"fmt"
	"time"
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

// hasTTL reports whether the key has a TTL.
func (d *db) hasTTL(key []byte) bool {
	_, ok := d.expires[string(key)]
	return ok
}

// mapsAlone is the aloneIf of a command that deletes or replaces keys
// (DEL, a search that stores): a string or a TTL lives in maps only a
// command holding the keyspace alone changes. In cluster mode dropping a
// geo key is a remote call, and with the keyspace alone every command on
// the node would wait for it: there the command runs shared unless one
// of its words names a string or a key with a TTL here.
func mapsAlone(e *Engine, c *Client, args [][]byte) bool {
	if !e.Router().Clustered() {
		return true
	}
	d := e.dbs[c.db]
	for _, a := range args[1:] {
		if _, str := d.strings[string(a)]; str || d.hasTTL(a) {
			return true
		}
	}
	return false
}

// expired reports whether the key has a TTL that has run out.
func (d *db) expired(key string, now int64) bool {
	at, ok := d.expires[key]
	return ok && at <= now
}

// anyExpired reports whether a key the command names has expired and must
// be deleted before it runs.
func (e *Engine) anyExpired(c *Client, cmd *command, args [][]byte) bool {
	dbIndex := c.db
	d := e.dbs[dbIndex]
	if len(d.expires) == 0 && !e.expiring.any() {
		return false
	}
	now := nowMS()
	for _, k := range cmd.keys(args) {
		if d.expired(string(k), now) || e.staleTTL(c, k) || e.expiring.has(dbIndex, string(k)) {
			return true
		}
	}
	return false
}

// staleTTL reports a TTL left behind by a key that emptied without a
// command deleting it (its last position expired): a new key of that
// name must not inherit it. In cluster mode it uses the answer the
// command's prepare step got before the lock while that is good
// (kindlookup.go), and a key no node that answered holds keeps its TTL
// when some node did not answer: it may hold the key.
func (e *Engine) staleTTL(c *Client, key []byte) bool {
	d := e.dbs[c.db]
	if _, ok := d.expires[string(key)]; !ok {
		return false
	}
	if _, ok := d.strings[string(key)]; ok {
		return false
	}
	geo, err := e.geoExists(c, key)
	return !geo && err == nil
}

// expireKeys deletes the command's keys whose TTL has run out. The caller
// holds the keyspace alone. In cluster mode a key whose drop did not
// reach every holder keeps its TTL and the error is returned: the command
// must not run on it as if it were alive (it answers -TRYAGAIN).
func (e *Engine) expireKeys(c *Client, cmd *command, args [][]byte) error {
	dbIndex := c.db
	d := e.dbs[dbIndex]
	if len(d.expires) == 0 && !e.expiring.any() {
		return nil
	}
	now := nowMS()
	for _, k := range cmd.keys(args) {
		if d.expired(string(k), now) || e.expiring.has(dbIndex, string(k)) {
			_, err := e.deleteKey(c, dbIndex, string(k))
			e.kinds.touch(kindStripe(dbIndex, k)) // a read queued in EXEC bumps nothing itself
			if err != nil {
				return fmt.Errorf("expired key %q not deleted: %w", k, err)
			}
		} else if e.staleTTL(c, k) {
			delete(d.expires, string(k))
		}
	}
	return nil
}

// deleteKey removes a key of any type and its TTL; the caller holds the
// keyspace alone, or, in cluster mode, shared for a geo key with no TTL
// here (mapsAlone), whose maps it then only reads. In cluster mode a geo key whose drop was refused or did
// not reach every node keeps its TTL (an expiry is tried again), and the
// error says why; single-node mode never fails.
func (e *Engine) deleteKey(c *Client, dbIndex int, key string) (bool, error) {
	d := e.dbs[dbIndex]
	if _, ok := d.strings[key]; ok {
		delete(d.strings, key)
		delete(d.expires, key)
		return true, nil
	}
	existed, err := e.dropGeo(c, dbIndex, key)
	if err != nil {
		return existed, err
	}
	if _, ok := d.expires[key]; ok {
		delete(d.expires, key)
	}
	return existed, nil
}
