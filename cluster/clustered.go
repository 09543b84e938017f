package cluster

import (
	"context"
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
