package router

// Remote shards: what the router needs from cluster mode, which lives in
// package cluster and plugs in through these interfaces. The router knows
// only that a shard is served here or by some peer; who owns what, how a
// peer is reached and how the assignment is agreed are cluster's business.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/geo"
	"geoshard/shard"
)

// Remote is cluster mode as the router sees it. It is nil in single-node
// mode, and every cluster path starts by testing that one interface, so a
// lone node pays nothing else.
type Remote interface {
	// View returns the routing in force; a command keeps one view from
	// start to end.
	View() View
	// Refresh re-reads the routing now, after a peer said ours is stale.
	Refresh(ctx context.Context)
	// CallTimeout bounds a remote call other than a search.
	CallTimeout() time.Duration
	// Status is what INFO shows of this node.
	Status() Status
	// Overview is the whole cluster as this node sees it (overview.go).
	Overview(ctx context.Context, counts bool) Overview
}

// View is one consistent routing: where each shard is served.
type View interface {
	// Local reports whether the shard is served in this process.
	Local(id shard.ID) bool
	// Peer returns the node serving a remote shard; nil when it is down
	// (or local). Two shards of one node give the same, comparable Peer.
	Peer(id shard.ID) Peer
	// ReplicaOf tells where a shard's replica is: in this process
	// (local), on a live peer, or nowhere (false, nil); and whether it
	// is filled: then it holds the same copies as the primary, and may
	// answer for it. Writes reach it from the moment it is placed.
	ReplicaOf(id shard.ID) (local bool, p Peer, filled bool)
	// Nodes lists every other live node once.
	Nodes() []Peer
}

// Peer is another node, reached through the view that named it: a call
// made with a stale view fails with an error wrapping ErrStale.
type Peer interface {
	ID() string // the node's id, the same in every view
	// Search and Nearest with since > 0 also name the members whose copy,
	// one q matches, the shard lost to a handoff at or after since
	// (departures.go).
	Search(ctx context.Context, id shard.ID, k shard.Key, q *geo.Search, cut int64, limit int, since int64) (hits []shard.Hit, departed []string, err error)
	Nearest(ctx context.Context, id shard.ID, k shard.Key, q *geo.Search, cut int64, n int, since int64) (hits []shard.Hit, complete bool, departed []string, err error)
	Put(ctx context.Context, id shard.ID, k shard.Key, e shard.Entry) error
	// PutIf is Put that the shard's primary refuses with ErrStaleCopy
	// unless the member's copy there has stamp expect (0: Put).
	PutIf(ctx context.Context, id shard.ID, k shard.Key, e shard.Entry, expect int64) error
	// Del removes the member's copies written no later than notAfter from
	// the shards ids; it returns the node's DelLocal answer: the stamp of
	// the newest copy its primaries of ids held, removed or kept (0: none).
	Del(ctx context.Context, ids []shard.ID, k shard.Key, member string, notAfter int64) (int64, error)
	// Get returns the newest copy of a member not older than cut.
	Get(ctx context.Context, ids []shard.ID, k shard.Key, member string, cut int64) (Copy, bool, error)
	// Scan returns up to want copies per shard within [min, max], and
	// whether some shard had more; with since > 0, as Search, the members
	// whose copy in the range the shards lost to handoffs since then.
	Scan(ctx context.Context, ids []shard.ID, k shard.Key, min, max Bound, rev bool, cut int64, want int,
		since int64) (es []shard.Entry, truncated bool, departed []string, err error)
	// Owner tells the node where a member's copy now is.
	Owner(ctx context.Context, k shard.Key, member string, c Copy) (int64, error)
	Drop(ctx context.Context, k shard.Key) (int64, error)
	Rename(ctx context.Context, from, to shard.Key) error
	Keys(ctx context.Context, db int) ([]string, error)
	Flush(ctx context.Context, db int) error
}

// Copy is where one copy of a member is: its shard, score and write stamp.
// By is set on a copy deleted lately because it gave way to the copy
// stamped By (giveway.go): only the write of that copy counts it as found.
type Copy struct {
	Shard shard.ID
	Score float64
	Stamp int64
	By    int64
}

func (c Copy) slot() slot { return slot{shard: c.Shard, score: c.Score, stamp: c.Stamp} }
func (s slot) copy() Copy { return Copy{Shard: s.shard, Score: s.score, Stamp: s.stamp} }

// Status is this node's view of the cluster, for INFO.
type Status struct {
	NodeID, Advertise string
	Leader            bool   // this node is the elected one
	LeaderID          string // the elected node's id; "" while unknown
	BusAuth           bool   // the bus asks for a password
	BusTLS            bool   // the bus runs over mutual TLS
	EtcdOK            bool   // etcd answered recently
	Owner             bool   // registered under a live lease
	Members           int
	TableVersion      int64
	TableAge          time.Duration // since the table last changed
	LocalShards       int
	DownShards        int // no live owner, or an owner failing health checks
	RemoteErrors      int64
}

// ErrStale marks a call a peer refused because our view is older than its.
var ErrStale = errors.New("routing table out of date")

// errShardDown is a shard no live node holds.
var errShardDown = errors.New("shard has no live owner")

// remoteState is the router's side of cluster mode.
type remoteState struct {
	errors  atomic.Int64
	logMu   sync.Mutex
	lastLog time.Time

	inflightMu sync.Mutex
	inflight   map[memberRef]chan struct{} // members with a write out (hold)

	fills  sync.Map // shard.ID -> *fill: replicas being filled here (replica.go)
	keyLog keyLog   // whole-key changes a fill must not undo (replica_keys.go)

	dropNotices atomic.Bool  // tests: lose every owner notice (DropOwnerNotices)
	arrivals    arrivals     // marks on copies whose old copy may be left (arrivals.go)
	departures  departureLog // copies handoffs deleted lately (departures.go)
	fresh       freshQueue   // first writes every node is to hear of (fresh.go)
	asks        absentAsks   // members other nodes asked for lately and found nowhere here (fresh.go)
	gaveWay     gaveWay      // first writes' copies deleted lately for a newer copy (giveway.go)
}

// SetRemote switches the router to cluster mode; cluster calls it before
// the server accepts clients.
func (r *Router) SetRemote(rm Remote) {
	r.cl = rm     // first: keys made from now on stay wide
	r.widenKeys() // a cluster node caches scores of members on other nodes
	r.watchChanges()
}

// Clustered reports whether the router is one node of a cluster.
func (r *Router) Clustered() bool { return r.cl != nil }

// ClusterStatus reports the node's view of the cluster; ok is false in
// single-node mode.
func (r *Router) ClusterStatus() (s Status, ok bool) {
	if r.cl == nil {
		return Status{}, false
	}
	return r.cl.Status(), true
}

// RemoteErrors counts remote calls that failed (timeouts included).
func (r *Router) RemoteErrors() int64 { return r.remote.errors.Load() }

// remoteFailed counts a failed remote call and logs it, at most once a
// second so a dead node under load does not flood the log.
func (r *Router) remoteFailed(op string, err error) {
	n := r.remote.errors.Add(1)
	r.remote.logMu.Lock()
	now := time.Now()
	quiet := now.Sub(r.remote.lastLog) < time.Second
	if !quiet {
		r.remote.lastLog = now
	}
	r.remote.logMu.Unlock()
	if !quiet {
		r.log.Warn("cluster: remote call failed", "op", op, "err", err, "failures", n)
	}
}

// local reports whether a shard is served in this process: always in
// single-node mode.
func (r *Router) local(id shard.ID) bool {
	return r.cl == nil || r.cl.View().Local(id)
}

// onShard reads from the node that owns shard id: in process when it is
// here, else remotely; a stale view refreshes the routing and tries again
// (staleTries in all), the shard perhaps having moved meanwhile. When
// the primary is down or its call fails, the shard's replica answers instead: it holds the
// same copies, so a node killed before its lease ends costs no answer.
func (r *Router) onShard(ctx context.Context, id shard.ID, here func(*shard.Shard) error,
	there func(ctx context.Context, p Peer) error) error {
	if r.cl == nil {
		return here(r.shards[id])
	}
	for attempt := 0; ; attempt++ {
		v := r.cl.View()
		if v.Local(id) {
			return here(r.shards[id])
		}
		err := errShardDown
		if p := v.Peer(id); p != nil {
			if err = there(ctx, p); err == nil {
				return nil
			}
			if attempt < staleTries-1 && errors.Is(err, ErrStale) {
				r.cl.Refresh(ctx)
				continue
			}
		}
		local, rp, filled := v.ReplicaOf(id)
		switch {
		case !filled:
		case local:
			return here(r.shards[id])
		case rp != nil && ctx.Err() == nil:
			rerr := there(ctx, rp)
			if rerr == nil {
				return nil
			}
			if attempt < staleTries-1 && errors.Is(rerr, ErrStale) {
				r.cl.Refresh(ctx)
				continue
			}
		}
		return err
	}
}

// staleTries is how many routing tables a call tries. One retry was
// not enough while a node joined: the leader publishes a table every
// rebalancing step, a peer refuses any version but its own, and a
// refresh waited up to 245 ms (a step is 200 ms in the tests), so a wide
// search's hundreds of calls often crossed two table changes and left
// shards out: 26 and 40 partial answers in 3,011 and 2,451 searches of
// TestClusterSearchDuringRebalance with one retry, 6, 6 and 6 with four
// tries, 3 with eight. Not all: see that test. Writes try as many (they
// tried two): a write refused for an old table each time answers the
// client an error, though its primary may have taken it already, and the
// client's retry is then told the member is not new.
const staleTries = 4

// onShardWrite runs a write on shard id's primary and, in parallel, on
// its replica, and succeeds only when both did (the replica can take over
// at any time, so an acknowledged write must be on it). A shard whose
// primary is down takes no write: its replica is about to be promoted.
func (r *Router) onShardWrite(ctx context.Context, id shard.ID, here func(*shard.Shard) error,
	there func(ctx context.Context, p Peer) error) error {
	return r.shardWrite(ctx, id, here, there, true)
}

// shardWrite is onShardWrite; strict refuses a shard whose replica is
// away (replica_gone.go). A handoff's delete is not strict: it was
// refused before its write if the shard had a holder away then
// (away_deletes.go), and if the replica went away since, a copy left on
// the primary would be seen now, one left on the away replica only if
// it is promoted.
func (r *Router) shardWrite(ctx context.Context, id shard.ID, here func(*shard.Shard) error,
	there func(ctx context.Context, p Peer) error, strict bool) error {
	write := here
	for attempt := 0; ; attempt++ {
		v := r.cl.View()
		p := v.Peer(id)
		if !v.Local(id) && p == nil {
			return errShardDown
		}
		here := func(s *shard.Shard) error { // under v, as the remote side's (remote_pin.go)
			return r.pinned(v, func() error { return write(s) })
		}
		local, rp, _ := v.ReplicaOf(id)
		if !local && rp == nil && strict && replicaGone(v, id) {
			return errReplicaGone
		}
		if !local && rp == nil { // no replica (cluster-replicas 0, or one live node)
			err := r.onPrimary(ctx, v, id, p, here, there)
			if attempt < staleTries-1 && errors.Is(err, ErrStale) {
				r.cl.Refresh(ctx)
				continue
			}
			return err
		}
		var rerr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			switch {
			case local:
				rerr = here(r.shards[id])
			case rp != nil:
				rerr = there(ctx, rp)
			}
		}()
		err := r.onPrimary(ctx, v, id, p, here, there)
		<-done
		if err == nil {
			err = rerr
		}
		if attempt < staleTries-1 && errors.Is(err, ErrStale) {
			r.cl.Refresh(ctx)
			continue
		}
		return err
	}
}

// onPrimary runs a call on shard id's primary: here, or on p.
func (r *Router) onPrimary(ctx context.Context, v View, id shard.ID, p Peer, here func(*shard.Shard) error,
	there func(ctx context.Context, p Peer) error) error {
	if v.Local(id) {
		return here(r.shards[id])
	}
	return there(ctx, p)
}

// samePeer finds, in the view in force, the node p named in an older one.
func (r *Router) samePeer(p Peer) Peer {
	for _, q := range r.cl.View().Nodes() {
		if q.ID() == p.ID() {
			return q
		}
	}
	return nil
}

// onAllNodes runs a whole-key call on every live node, this one included.
func (r *Router) onAllNodes(ctx context.Context, here func(),
	there func(ctx context.Context, p Peer) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, p := range r.cl.View().Nodes() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := there(ctx, p)
			if errors.Is(err, ErrStale) {
				r.cl.Refresh(ctx)
				if q := r.samePeer(p); q != nil {
					err = there(ctx, q)
				}
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
	return context.WithTimeout(context.Background(), r.cl.CallTimeout())
}

// observe keeps this node's write stamps after every stamp it has seen,
// so a write here is newer than the copy it replaces even when another
// node's clock runs a little ahead.
func (r *Router) observe(stamp int64) { r.lastStamp.keep(stamp) }
