package router

// Whole-key changes in cluster mode go to every node; the Local halves
// are what a node does when asked.

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"geoshard/shard"
)

// dropCluster deletes a key on every node it reaches, and fails when
// some node could not be reached or its members not all counted (the
// client may try again: a drop repeats safely).
func (r *Router) dropCluster(k shard.Key) (bool, error) {
	if err := r.keysAway("drop", k); err != nil {
		return false, err
	}
	n, cerr := r.cardCluster(k)
	ctx, cancel := r.callCtx()
	defer cancel()
	var total atomic.Int64
	err := r.onAllNodes(ctx, func() { total.Add(int64(r.DropLocal(k))) },
		func(ctx context.Context, p Peer) error {
			n, err := p.Drop(ctx, k)
			total.Add(n)
			return r.nodeUnread(p, err)
		})
	if err != nil {
		return n > 0, r.shardsFailed("drop", "written", err)
	}
	return n > 0, cerr
}

// DropLocal deletes a key from this node's shards and cache and returns how
// many copies went.
func (r *Router) DropLocal(k shard.Key) int {
	r.noteDrop(k) // before the drop, so a replica's fill cannot undo it
	r.mu.Lock()
	if g := r.keys[k]; g != nil {
		r.forget(k, g)
	}
	r.mu.Unlock()
	n := 0
	for _, s := range r.shards {
		n += s.Drop(k)
	}
	return n
}

// forget drops the router's view of a key; the caller holds r.mu.
func (r *Router) forget(k shard.Key, g *geoKey) {
	for i := range g.stripes {
		g.stripes[i].mu.Lock()
	}
	g.dead = true
	for i := range g.stripes {
		g.stripes[i].mu.Unlock()
	}
	delete(r.keys, k)
}

// renameCluster renames a key on every node; it fails when some node
// could not be reached, which leaves that node's members under the old
// name.
func (r *Router) renameCluster(from, to shard.Key) error {
	if err := r.keysAway("rename", from, to); err != nil {
		return err
	}
	ctx, cancel := r.callCtx()
	defer cancel()
	err := r.onAllNodes(ctx, func() { r.RenameLocal(from, to) },
		func(ctx context.Context, p Peer) error {
			return r.nodeUnread(p, p.Rename(ctx, from, to))
		})
	if err != nil {
		return r.shardsFailed("rename", "written", err)
	}
	return nil
}

// keysCluster lists the database's keys with members on any node; when
// some node could not be asked, it returns the others' with the error.
func (r *Router) keysCluster(db int) ([]string, error) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	add := func(names []string) {
		mu.Lock()
		for _, n := range names {
			seen[n] = true
		}
		mu.Unlock()
	}
	err := r.onAllNodes(ctx, func() { add(r.KeysLocal(db)) },
		func(ctx context.Context, p Peer) error {
			names, err := p.Keys(ctx, db)
			add(names)
			return r.nodeUnread(p, err)
		})
	if err != nil {
		err = r.readFailed("keys", err)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	return out, err
}

// KeysLocal lists the database's keys that have live copies in this
// node's shards. Every key written here, or sent here by another node,
// has an entry in the owner cache, which is what makes it listable.
func (r *Router) KeysLocal(db int) []string {
	r.mu.RLock()
	var cand []shard.Key
	for k := range r.keys {
		if k.DB == db {
			cand = append(cand, k)
		}
	}
	r.mu.RUnlock()
	t := now()
	var out []string
	for _, k := range cand {
		cut := r.minStamp(r.key(k, false), t)
		for _, s := range r.shards {
			found := false
			s.Ascend(k, math.Inf(-1), cut, func(shard.Entry) bool { found = true; return false })
			if found {
				out = append(out, k.Name)
				break
			}
		}
	}
	return out
}

// RenameLocal renames a key in this node's shards and cache.
func (r *Router) RenameLocal(from, to shard.Key) {
	r.noteRename(from, to) // before the rename, so a replica's fill follows it
	r.mu.Lock()
	g := r.keys[from]
	delete(r.keys, from)
	if old := r.keys[to]; old != nil {
		r.forget(to, old)
	}
	if g != nil {
		r.keys[to] = g
		d, ok := r.keyTTL[to]
		if !ok {
			d = -1
		}
		g.ttl.Store(int64(d))
	}
	// The shards' sets are renamed before r.mu goes (r.mu, then stripes,
	// as forgetEmpty): a reclaim that looked the old name up in between
	// found no key and deleted a copy with no stripe lock while a narrow
	// record named its slot (TestRenameWhileReclaiming).
	defer r.mu.Unlock()
	if g != nil {
		g.renameShards(r.shards, from, to) // with g's stripes locked
		return
	}
	for _, s := range r.shards {
		s.Rename(from, to)
	}
}

// flushCluster drops every key of a database (all when db < 0) on every
// node; it fails when some node could not be reached or a shard has a
// holder away (away_deletes.go), and then changes nothing.
func (r *Router) flushCluster(db int) error {
	if err := r.flushAway(); err != nil {
		return err
	}
	ctx, cancel := r.callCtx()
	defer cancel()
	err := r.onAllNodes(ctx, func() { r.FlushLocal(db) },
		func(ctx context.Context, p Peer) error {
			return r.nodeUnread(p, p.Flush(ctx, db))
		})
	if err != nil {
		return r.shardsFailed("flush", "written", err)
	}
	return nil
}

// FlushLocal drops every key of a database (all when db < 0) from this
// node's shards and cache.
func (r *Router) FlushLocal(db int) {
	r.noteFlush(db) // also covers keys a running fill has not copied yet
	r.mu.RLock()
	var ks []shard.Key
	for k := range r.keys {
		if db < 0 || k.DB == db {
			ks = append(ks, k)
		}
	}
	r.mu.RUnlock()
	for _, k := range ks {
		r.DropLocal(k)
	}
}
