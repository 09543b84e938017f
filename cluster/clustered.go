package cluster

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/shard"
)

// clusterState is what a router needs once it is one node of several. It
// is nil in single-node mode, and every cluster path starts by checking
// that one pointer, so a lone node pays nothing else.
type clusterState struct {
	pass    string
	timeout time.Duration // per remote call that is not a search
	table   atomic.Pointer[Table]
	refresh func(ctx context.Context) // re-reads the assignment now
	owner   atomic.Bool               // registered under a live lease
	status  func() Status

	remoteErrors atomic.Int64
	logMu        sync.Mutex
	lastLog      time.Time
}

// ClusterConfig turns a router into one node of a cluster.
type ClusterConfig struct {
	Password string        // internal commands must carry it
	Timeout  time.Duration // per remote call other than searches; 0: 1 s
}

// enableCluster switches the router to cluster mode; the Node calls it
// before the server accepts clients.
func (r *Router) enableCluster(cfg ClusterConfig, self string, refresh func(context.Context)) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Second
	}
	cs := &clusterState{pass: cfg.Password, timeout: cfg.Timeout, refresh: refresh}
	// Until the first assignment arrives no shard is served anywhere.
	cs.table.Store(newTable(0, self, make([]string, len(r.shards)), nil))
	r.cl = cs
}

// Clustered reports whether the router is one node of a cluster.
func (r *Router) Clustered() bool { return r.cl != nil }

// ClusterStatus reports the node's view of the cluster; ok is false in
// single-node mode.
func (r *Router) ClusterStatus() (s Status, ok bool) {
	if r.cl == nil || r.cl.status == nil {
		return Status{}, false
	}
	return r.cl.status(), true
}

// Table returns the routing table in force; nil in single-node mode.
func (r *Router) Table() *Table {
	if r.cl == nil {
		return nil
	}
	return r.cl.table.Load()
}

func (r *Router) setTable(t *Table) { r.cl.table.Store(t) }

// RemoteErrors counts remote calls that failed (timeouts included).
func (r *Router) RemoteErrors() int64 {
	if r.cl == nil {
		return 0
	}
	return r.cl.remoteErrors.Load()
}

// remoteFailed counts a failed remote call and logs it, at most once a
// second so a dead node under load does not flood the log.
func (r *Router) remoteFailed(op string, err error) {
	r.cl.remoteErrors.Add(1)
	r.cl.logMu.Lock()
	now := time.Now()
	quiet := now.Sub(r.cl.lastLog) < time.Second
	if !quiet {
		r.cl.lastLog = now
	}
	r.cl.logMu.Unlock()
	if !quiet {
		r.log.Warn("cluster: remote call failed", "op", op, "err", err,
			"failures", r.cl.remoteErrors.Load())
	}
}

// local reports whether a shard is served in this process: always in
// single-node mode.
func (r *Router) local(id shard.ID) bool {
	return r.cl == nil || r.cl.table.Load().Local(id)
}

// onShard runs a call on the node that owns shard id: in process when it
// is here, else remotely; a version mismatch refreshes the table and
// tries once more, the shard perhaps having moved meanwhile.
func (r *Router) onShard(ctx context.Context, id shard.ID, here func(*shard.Shard) error,
	there func(ctx context.Context, p *peer, ver int64) error) error {
	if r.cl == nil {
		return here(r.shards[id])
	}
	for attempt := 0; ; attempt++ {
		t := r.cl.table.Load()
		if t.Local(id) {
			return here(r.shards[id])
		}
		p := t.peers[id]
		if p == nil {
			return errShardDown
		}
		err := there(ctx, p, t.Version)
		if attempt == 0 && isVersionErr(err) {
			r.cl.refresh(ctx)
			continue
		}
		return err
	}
}

// onNodes runs a call on every node holding some of the shards ids (all
// shards when ids is nil), in parallel; here runs for the local ones.
// It returns the first error; down shards count as one.
func (r *Router) onNodes(ctx context.Context, ids []shard.ID, here func(ids []shard.ID),
	there func(ctx context.Context, p *peer, ver int64, ids []shard.ID) error) error {
	if ids == nil {
		ids = make([]shard.ID, len(r.shards))
		for i := range ids {
			ids[i] = shard.ID(i)
		}
	}
	t := r.cl.table.Load()
	local, remote, down := t.byNode(ids)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	if len(down) > 0 {
		fail(errShardDown)
	}
	for p, pids := range remote {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := there(ctx, p, t.Version, pids)
			if isVersionErr(err) {
				r.cl.refresh(ctx)
				// Retried on the same node: the shards it was asked for
				// are likely still there; a moved one answers nothing.
				err = there(ctx, p, r.cl.table.Load().Version, pids)
			}
			if err != nil {
				fail(err)
			}
		}()
	}
	if len(local) > 0 {
		here(local)
	}
	wg.Wait()
	return first
}

// onAllNodes runs a whole-key call on every live node, this one included.
func (r *Router) onAllNodes(ctx context.Context, here func(),
	there func(ctx context.Context, p *peer, ver int64) error) error {
	t := r.cl.table.Load()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, p := range t.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := there(ctx, p, t.Version)
			if isVersionErr(err) {
				r.cl.refresh(ctx)
				err = there(ctx, p, r.cl.table.Load().Version)
			}
			if err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
		}()
	}
	here()
	wg.Wait()
	return first
}

func (r *Router) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.cl.timeout)
}

// observe keeps this node's write stamps after every stamp it has seen,
// so a write here is newer than the copy it replaces even when another
// node's clock runs a little ahead.
func (r *Router) observe(stamp int64) {
	for {
		last := r.lastStamp.Load()
		if stamp <= last || r.lastStamp.CompareAndSwap(last, stamp) {
			return
		}
	}
}

// findMember returns the newest live copy of a member over every shard of
// the cluster: the owner table is only a cache here, since members may
// have been written through other nodes.
func (r *Router) findMember(k shard.Key, member string, cut int64) (slot, bool) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu    sync.Mutex
		best  slot
		found bool
	)
	keep := func(s slot) {
		mu.Lock()
		if !found || s.stamp > best.stamp {
			best, found = s, true
		}
		mu.Unlock()
	}
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		for _, id := range ids {
			if e, ok := r.shards[id].Get(k, member); ok && e.Stamp >= cut {
				keep(slot{shard: id, score: e.Score, stamp: e.Stamp})
			}
		}
	}, func(ctx context.Context, p *peer, ver int64, ids []shard.ID) error {
		s, ok, err := p.get(ctx, r.cl.pass, ver, ids, k, member, cut)
		if ok {
			keep(s)
		}
		return err
	})
	if err != nil {
		r.remoteFailed("get", err)
	}
	if found {
		r.observe(best.stamp)
	}
	return best, found
}

// addCluster is Add when members may live on other nodes: the current
// copy comes from the cache, or from every shard when the cache has none.
func (r *Router) addCluster(k shard.Key, member string, score float64, f AddFlags) (added, changed bool) {
	g, st := r.lockMember(k, member, true)
	defer st.mu.Unlock()
	stamp := r.stamp()
	cut := r.minStamp(g, stamp)
	cur, exists := st.owner[member]
	if !exists || cur.stamp < cut {
		cur, exists = r.findMember(k, member, cut)
		if exists && cur.stamp >= stamp {
			stamp = r.stamp() // observed a newer stamp from another clock
		}
	}
	live := exists && cur.stamp >= cut
	switch {
	case f.NX && live, f.XX && !live:
		return false, false
	case live && f.GT && !(score > cur.score), live && f.LT && !(score < cur.score):
		return false, false
	}
	if score == 0 && !g.big.Load() {
		score = 0 // a listpack stores -0 as 0
	}
	e := shard.NewEntry(member, score, stamp)
	to := r.place(cur.shard, live, e.Lon, e.Lat)
	ctx, cancel := r.callCtx()
	defer cancel()
	err := r.onShard(ctx, to, func(s *shard.Shard) error {
		s.Put(k, e)
		return nil
	}, func(ctx context.Context, p *peer, ver int64) error {
		return p.put(ctx, r.cl.pass, ver, to, k, e)
	})
	if err != nil {
		// The position is lost until the next ping; the old copy, if any,
		// stays and keeps the member visible.
		r.remoteFailed("put", err)
		return !live, live && cur.score != score
	}
	r.stats.Shards[to].Writes.Add(1)
	if exists && cur.shard != to {
		r.stats.Shards[cur.shard].HandoffsOut.Add(1)
		r.stats.Shards[to].HandoffsIn.Add(1)
		r.stats.Border(cur.shard, to).Handoffs.Add(1)
		if !r.hooks.dropDeletes.Load() {
			r.deleteCopy(ctx, cur.shard, k, member, stamp-1)
		}
		r.announceOwner(ctx, k, member, slot{shard: to, score: score, stamp: stamp})
	}
	if _, ok := st.owner[member]; !ok {
		g.entries.Add(1)
	}
	st.owner[member] = slot{shard: to, score: score, stamp: stamp}
	return !live, live && cur.score != score
}

// announceOwner tells every other node where a member went after a
// handoff. Without it, a node that wrote the member earlier would still
// think it in the old shard, and its next write would leave the new copy
// behind, stale, where searches near it would find the member twice
// (deduped) or at an old position (where only that shard is asked).
func (r *Router) announceOwner(ctx context.Context, k shard.Key, member string, s slot) {
	err := r.onAllNodes(ctx, func() {}, func(ctx context.Context, p *peer, ver int64) error {
		return p.owner(ctx, r.cl.pass, ver, k, member, s)
	})
	if err != nil {
		r.remoteFailed("announce owner", err)
	}
}

// deleteCopy removes the old copy after a handoff; if its node cannot be
// reached, the position TTL removes it later.
func (r *Router) deleteCopy(ctx context.Context, id shard.ID, k shard.Key, member string, notAfter int64) {
	err := r.onShard(ctx, id, func(s *shard.Shard) error {
		s.Delete(k, member, notAfter)
		return nil
	}, func(ctx context.Context, p *peer, ver int64) error {
		_, err := p.del(ctx, r.cl.pass, ver, []shard.ID{id}, k, member, notAfter)
		return err
	})
	if err != nil {
		r.remoteFailed("handoff delete", err)
	}
}

// removeCluster deletes every copy of a member on every node.
func (r *Router) removeCluster(k shard.Key, member string) bool {
	g, st := r.lockMember(k, member, true)
	defer st.mu.Unlock()
	if _, ok := st.owner[member]; ok {
		delete(st.owner, member)
		g.entries.Add(-1)
	}
	ctx, cancel := r.callCtx()
	defer cancel()
	var newest atomic.Int64
	keep := func(s int64) {
		for {
			n := newest.Load()
			if s <= n || newest.CompareAndSwap(n, s) {
				return
			}
		}
	}
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		for _, id := range ids {
			if e, ok := r.shards[id].Delete(k, member, math.MaxInt64); ok {
				keep(e.Stamp)
			}
		}
	}, func(ctx context.Context, p *peer, ver int64, ids []shard.ID) error {
		s, err := p.del(ctx, r.cl.pass, ver, ids, k, member, math.MaxInt64)
		keep(s)
		return err
	})
	if err != nil {
		r.remoteFailed("remove", err)
	}
	n := newest.Load()
	return n > 0 && n >= r.minStamp(g, now())
}

// scanCluster gathers up to want copies per shard within [min, max] from
// every node; truncated says some shard had more.
func (r *Router) scanCluster(k shard.Key, min, max Bound, rev bool, cut int64, want int) ([]shard.Entry, bool) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu        sync.Mutex
		all       []shard.Entry
		truncated bool
	)
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		es, tr := r.scanLocal(ids, k, min, max, rev, cut, want)
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
	}, func(ctx context.Context, p *peer, ver int64, ids []shard.ID) error {
		es, tr, err := p.scan(ctx, r.cl.pass, ver, ids, k, min, max, rev, cut, want)
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
		return err
	})
	if err != nil {
		r.remoteFailed("range", err)
	}
	return newestEntries(all), truncated
}

// newestEntries keeps, of each member, its newest copy.
func newestEntries(es []shard.Entry) []shard.Entry {
	newest := make(map[string]int, len(es))
	out := es[:0]
	for _, e := range es {
		if i, ok := newest[e.Member]; ok {
			if e.Stamp > out[i].Stamp {
				out[i] = e
			}
			continue
		}
		newest[e.Member] = len(out)
		out = append(out, e)
	}
	return out
}

// scanLocal is one node's part of a range: up to want copies per shard.
func (r *Router) scanLocal(ids []shard.ID, k shard.Key, min, max Bound, rev bool, cut int64, want int) ([]shard.Entry, bool) {
	var all []shard.Entry
	truncated := false
	for _, id := range ids {
		s := r.shards[id]
		n := 0
		visit := func(e shard.Entry) bool {
			if n == want {
				truncated = true
				return false
			}
			if rev {
				if !min.below(e.Score) {
					return false
				}
				if !max.above(e.Score) {
					return true
				}
			} else {
				if !max.above(e.Score) {
					return false
				}
				if !min.below(e.Score) {
					return true
				}
			}
			all = append(all, e)
			n++
			return true
		}
		if rev {
			s.Descend(k, max.Score, cut, visit)
		} else {
			s.Ascend(k, min.Score, cut, visit)
		}
	}
	return all, truncated
}

var everything = [2]Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}

// cardCluster counts a key's members over every node, each once.
func (r *Router) cardCluster(k shard.Key) int {
	g := r.key(k, false)
	es, _ := r.scanCluster(k, everything[0], everything[1], false, r.minStamp(g, now()), math.MaxInt)
	return len(es)
}

// scoreCluster reads a member's newest score over every node.
func (r *Router) scoreCluster(k shard.Key, member string) (float64, bool) {
	g := r.key(k, false)
	s, ok := r.findMember(k, member, r.minStamp(g, now()))
	return s.score, ok
}

// dropCluster deletes a key on every node.
func (r *Router) dropCluster(k shard.Key) bool {
	ctx, cancel := r.callCtx()
	defer cancel()
	var total atomic.Int64
	existed := r.cardCluster(k) > 0
	err := r.onAllNodes(ctx, func() { total.Add(int64(r.DropLocal(k))) },
		func(ctx context.Context, p *peer, ver int64) error {
			n, err := p.drop(ctx, r.cl.pass, ver, k)
			total.Add(n)
			return err
		})
	if err != nil {
		r.remoteFailed("drop", err)
	}
	return existed
}

// DropLocal deletes a key from this node's shards and cache and returns how
// many copies went.
func (r *Router) DropLocal(k shard.Key) int {
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

// renameCluster renames a key on every node.
func (r *Router) renameCluster(from, to shard.Key) {
	ctx, cancel := r.callCtx()
	defer cancel()
	err := r.onAllNodes(ctx, func() { r.RenameLocal(from, to) },
		func(ctx context.Context, p *peer, ver int64) error {
			return p.rename(ctx, r.cl.pass, ver, from, to)
		})
	if err != nil {
		r.remoteFailed("rename", err)
	}
}

// keysCluster lists the database's keys with members on any node.
func (r *Router) keysCluster(db int) []string {
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
		func(ctx context.Context, p *peer, ver int64) error {
			names, err := p.keys(ctx, r.cl.pass, ver, db)
			add(names)
			return err
		})
	if err != nil {
		r.remoteFailed("keys", err)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	return out
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
	r.mu.Unlock()
	for _, s := range r.shards {
		s.Rename(from, to)
	}
}

// sweepCache forgets cached owners older than the position TTL: in
// cluster mode the cache also holds members whose copy lives elsewhere,
// which no local reclaim would ever remove.
func (r *Router) sweepCache(t int64) {
	r.mu.RLock()
	keys := make([]*geoKey, 0, len(r.keys))
	for _, g := range r.keys {
		keys = append(keys, g)
	}
	r.mu.RUnlock()
	for _, g := range keys {
		cut := r.minStamp(g, t)
		if cut == 0 {
			continue
		}
		for i := range g.stripes {
			st := &g.stripes[i]
			st.mu.Lock()
			for m, s := range st.owner {
				if s.stamp < cut {
					delete(st.owner, m)
					g.entries.Add(-1)
				}
			}
			st.mu.Unlock()
		}
	}
}

// cacheOwner records, on the node that stores a copy, where the member now
// is, so its own owner cache follows writes made through other nodes.
// A stripe busy with a write of this member is left alone: that writer
// may itself be waiting on a call to the node that sent this copy.
func (r *Router) cacheOwner(k shard.Key, member string, s slot) {
	g := r.key(k, true)
	st := r.stripe(g, member)
	if !st.mu.TryLock() {
		return
	}
	defer st.mu.Unlock()
	if g.dead {
		return
	}
	cur, ok := st.owner[member]
	if ok && cur.stamp >= s.stamp {
		return
	}
	if !ok {
		g.entries.Add(1)
	}
	st.owner[member] = s
	r.observe(s.stamp)
}

// uncacheOwner forgets a cached owner that a delete made stale.
func (r *Router) uncacheOwner(k shard.Key, member string, notAfter int64) {
	g := r.key(k, false)
	if g == nil {
		return
	}
	st := r.stripe(g, member)
	if !st.mu.TryLock() {
		return
	}
	defer st.mu.Unlock()
	if cur, ok := st.owner[member]; ok && cur.stamp <= notAfter {
		delete(st.owner, member)
		g.entries.Add(-1)
	}
}

// flushCluster drops every key of a database (all when db < 0) on every
// node.
func (r *Router) flushCluster(db int) {
	ctx, cancel := r.callCtx()
	defer cancel()
	err := r.onAllNodes(ctx, func() { r.FlushLocal(db) },
		func(ctx context.Context, p *peer, ver int64) error {
			_, err := p.do(ctx, r.cl.pass, ver, "GEOSHARD.FLUSH", itoa(int64(db)))
			return err
		})
	if err != nil {
		r.remoteFailed("flush", err)
	}
}

// FlushLocal drops every key of a database (all when db < 0) from this
// node's shards and cache.
func (r *Router) FlushLocal(db int) {
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

// clearShard removes the copies a shard holds from before cut. A node
// that gains a shard may still hold copies from an earlier time it owned
// it, which the pings since went elsewhere; a node that loses one keeps
// copies nobody asks for. Either way they go, and the shard refills from
// the next pings.
func (r *Router) clearShard(id shard.ID, cut int64) {
	r.shards[id].Reclaim(func(shard.Key) int64 { return cut }, func(k shard.Key, e shard.Entry) {
		g := r.key(k, false)
		if g == nil {
			return
		}
		st := r.stripe(g, e.Member)
		st.mu.Lock()
		if cur, ok := st.owner[e.Member]; ok && cur.shard == id && cur.stamp == e.Stamp {
			delete(st.owner, e.Member)
			g.entries.Add(-1)
		}
		st.mu.Unlock()
	})
}
