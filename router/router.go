// Package router routes one logical geo key across the shards of a region
// map: it places every write in its shard with hysteresis, hands members
// over between shards, and answers searches by fan-out and merge. In
// cluster mode some shards live on other nodes; package cluster plugs
// them in through the Remote interface (remote.go), and the router's
// remote_*.go files are the write, read and whole-key paths over them.
package router

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/shard"
)

// Config sets up a Router.
type Config struct {
	Regions       *shard.Map    // nil: the embedded world map
	PositionTTL   time.Duration // 0: positions never expire (Redis's behaviour)
	FanoutTimeout time.Duration // per-shard deadline of a multi-shard search; 0: 50 ms
	Logger        *slog.Logger
}

// Router is the one place that knows about shards.
type Router struct {
	regions *shard.Map
	shards  []*shard.Shard
	stats   *Stats
	log     *slog.Logger

	ttl           atomic.Int64 // global position TTL, ns
	fanoutTimeout atomic.Int64 // ns
	lastStamp     newestStamp

	mu     sync.RWMutex
	keys   map[shard.Key]*geoKey
	keyTTL map[shard.Key]time.Duration // per-key position TTLs; they outlive the key

	cl     Remote // nil: single-node mode
	remote remoteState

	move *move // the members still in the previous map's shards (reload.go)
	// retired is set, under mu, by Reload, which hands this router's
	// shards and keys to another: a reclaim still running here deletes no
	// copy of a key it no longer knows (reclaim.go).
	retired bool

	bulk []bulkQueue // per shard (bulk.go)

	hooks testHooks
}

// testHooks let tests make a shard slow or lose deletes, the two failures a
// router must survive.
type testHooks struct {
	delay       []atomic.Int64 // per shard, ns added to every search
	dropDeletes atomic.Bool
	dropped     atomic.Bool // a delete was dropped: shards may hold stale copies
	narrowAt    int         // 0: narrowAt; set before the first write
}

const stripes = 64

// geoKey is the router's view of one logical key: for each member, the
// shard that holds its current copy. Striped so writers of different
// members never wait for each other.
type geoKey struct {
	ttl     atomic.Int64 // position TTL for this key, ns; -1: the global one
	dead    bool         // forgotten by the router; set with every stripe locked
	entries atomic.Int64 // members in the owner table, expired or not
	// big is set once Redis would keep this key as a skiplist rather than
	// a listpack (more than 128 members, or a member over 64 bytes). It
	// matters for one thing a client can see: a listpack turns a score of
	// -0 into 0, a skiplist keeps it.
	big      atomic.Bool
	held     heldState     // which shards hold members, for searches (holders.go)
	handoffs atomic.Uint64 // handoffs about to delete an old copy (readShards)
	// handing is held shared by a handoff's delete, alone by a search's
	// last read (readShards).
	handing  sync.RWMutex
	src      source      // where narrow owner tables read scores (owners_source.go)
	narrowed atomic.Bool // some stripe's owner table is narrow
	stripes  [stripes]stripe
}

type stripe struct {
	mu    sync.Mutex
	owner owners
}

// slot is where a member's current copy lives and what it holds.
type slot struct {
	shard shard.ID
	at    uint32 // the copy's slab slot in shard: narrow tables only
	score float64
	stamp int64
}

// New builds a router over fresh, empty local shards.
func New(cfg Config) *Router {
	m := cfg.Regions
	if m == nil {
		m = shard.DefaultMap()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Router{
		regions: m,
		shards:  make([]*shard.Shard, m.Len()),
		stats:   newStats(m),
		log:     log,
		keys:    make(map[shard.Key]*geoKey),
		keyTTL:  make(map[shard.Key]time.Duration),
	}
	for i := range r.shards {
		r.shards[i] = shard.New()
	}
	r.hooks.delay = make([]atomic.Int64, m.Len())
	r.bulk = make([]bulkQueue, m.Len())
	r.SetPositionTTL(cfg.PositionTTL)
	if cfg.FanoutTimeout <= 0 {
		cfg.FanoutTimeout = 50 * time.Millisecond
	}
	r.SetFanoutTimeout(cfg.FanoutTimeout)
	return r
}

// Regions returns the region map in use.
func (r *Router) Regions() *shard.Map { return r.regions }

// Stats returns the router's counters.
func (r *Router) Stats() *Stats { return r.stats }

// SetPositionTTL sets the global position time-to-live; 0 disables it.
func (r *Router) SetPositionTTL(d time.Duration) { r.ttl.Store(int64(max(d, 0))) }

// PositionTTL returns the global position time-to-live.
func (r *Router) PositionTTL() time.Duration { return time.Duration(r.ttl.Load()) }

// SetFanoutTimeout sets the per-shard deadline of multi-shard searches.
func (r *Router) SetFanoutTimeout(d time.Duration) { r.fanoutTimeout.Store(int64(d)) }

// FanoutTimeout returns the per-shard deadline of multi-shard searches.
func (r *Router) FanoutTimeout() time.Duration { return time.Duration(r.fanoutTimeout.Load()) }

// SetShardDelay makes every search of one shard wait d first. For tests
// of degraded searches only.
func (r *Router) SetShardDelay(id shard.ID, d time.Duration) { r.hooks.delay[id].Store(int64(d)) }

// DropDeletes makes handoffs skip deleting the old copy, as a lost delete
// would. For tests of the position TTL only.
func (r *Router) DropDeletes(drop bool) { r.hooks.dropDeletes.Store(drop) }

// newestStamp is the newest of stamps kept, from many goroutines at once.
type newestStamp struct{ atomic.Int64 }

func (n *newestStamp) keep(s int64) {
	for {
		old := n.Load()
		if s <= old || n.CompareAndSwap(old, s) {
			return
		}
	}
}

// stamp returns a write timestamp later than every one before it, so the
// newest copy of a member is always the one written last.
func (r *Router) stamp() int64 {
	now := time.Now().UnixNano()
	for {
		last := r.lastStamp.Load()
		next := max(now, last+1)
		if r.lastStamp.CompareAndSwap(last, next) {
			return next
		}
	}
}

// key returns the router's view of k, creating it when create is set.
func (r *Router) key(k shard.Key, create bool) *geoKey {
	r.mu.RLock()
	g := r.keys[k]
	r.mu.RUnlock()
	if g != nil || !create {
		return g
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g = r.keys[k]; g == nil {
		g = &geoKey{}
		g.ttl.Store(-1)
		if d, ok := r.keyTTL[k]; ok {
			g.ttl.Store(int64(d))
		}
		if r.cl == nil {
			r.localKey(g, k)
		}
		r.keys[k] = g
	}
	return g
}

func (r *Router) stripe(g *geoKey, member string) *stripe {
	return &g.stripes[r.stripeOf(member)]
}

// stripeOf picks a member's stripe from the low bits of its shard.Hash,
// which the owner table does not use for positions: see owners.home.
func (r *Router) stripeOf(member string) uint8 { return stripeOfHash(shard.Hash(member)) }

func stripeOfHash(h uint64) uint8 { return uint8(h % stripes) }

// minStamp returns the oldest write still visible in g: 0 when positions
// do not expire.
func (r *Router) minStamp(g *geoKey, now int64) int64 {
	ttl := r.ttl.Load()
	if g != nil {
		if t := g.ttl.Load(); t >= 0 {
			ttl = t
		}
	}
	if ttl <= 0 {
		return 0
	}
	return now - ttl
}

// SetKeyTTL sets the position TTL of one key, which outlives the key
// itself; a negative d goes back to the global TTL.
func (r *Router) SetKeyTTL(k shard.Key, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d < 0 {
		delete(r.keyTTL, k)
		d = -1
	} else {
		r.keyTTL[k] = d
	}
	if g := r.keys[k]; g != nil {
		g.ttl.Store(int64(d))
	}
}

// KeyTTL returns the position TTL in force for k.
func (r *Router) KeyTTL(k shard.Key) time.Duration {
	r.mu.RLock()
	d, ok := r.keyTTL[k]
	r.mu.RUnlock()
	if ok {
		return d
	}
	return r.PositionTTL()
}
