package router

import (
	"time"

	"geoshard/shard"
)

func now() int64 { return time.Now().UnixNano() }

// Drop deletes a whole key and reports whether it had members. The caller
// keeps writes to the same key out while it runs.
func (r *Router) Drop(k shard.Key) bool {
	if r.cl != nil {
		existed, _ := r.dropCluster(k)
		return existed
	}
	existed := r.Card(k) > 0
	r.DropLocal(k)
	return existed
}

// Rename moves a key to a new name, replacing what was there. The caller
// keeps writes to both keys out while it runs.
func (r *Router) Rename(from, to shard.Key) {
	if from == to {
		return
	}
	if r.cl != nil {
		r.renameCluster(from, to) // TryRename reports the error
		return
	}
	r.RenameLocal(from, to)
}

// Keys lists the names of the database's keys that have members.
func (r *Router) Keys(db int) []string {
	if r.cl != nil {
		names, _ := r.keysCluster(db)
		return names
	}
	r.mu.RLock()
	cand := make([]shard.Key, 0, len(r.keys))
	for k := range r.keys {
		if k.DB == db {
			cand = append(cand, k)
		}
	}
	r.mu.RUnlock()
	var out []string
	for _, k := range cand {
		if r.Card(k) > 0 {
			out = append(out, k.Name)
		}
	}
	return out
}

// Flush drops every key of a database, or of all of them when db < 0.
func (r *Router) Flush(db int) {
	if r.cl != nil {
		_ = r.flushCluster(db) // TryFlush reports the error
		return
	}
	r.FlushLocal(db)
}

// TryDrop is Drop that fails, in cluster mode, when some node could not
// be reached.
func (r *Router) TryDrop(k shard.Key) (bool, error) {
	if r.cl != nil {
		return r.dropCluster(k)
	}
	return r.Drop(k), nil
}

// TryRename is Rename that fails, in cluster mode, when some node could
// not be reached.
func (r *Router) TryRename(from, to shard.Key) error {
	if r.cl != nil && from != to {
		return r.renameCluster(from, to)
	}
	r.Rename(from, to)
	return nil
}

// TryKeys is Keys that fails, in cluster mode, when some node could not
// be asked.
func (r *Router) TryKeys(db int) ([]string, error) {
	if r.cl != nil {
		return r.keysCluster(db)
	}
	return r.Keys(db), nil
}
