package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"geoshard/router"
)

// NodeConfig makes a router one node of a cluster coordinated by etcd.
type NodeConfig struct {
	Endpoints []string // etcd client URLs or host:port
	Cluster   string   // cluster name: the etcd key prefix
	ID        string   // this node's id, unique in the cluster
	Advertise string   // host:port clients reach this node at (GEOSHARD NODES)
	Bus       string   // host:port to listen on for other nodes; "" = Advertise's host, any port
	Password  string   // internal commands carry it

	// TLS of the bus: BusTLS serves it (asking peers for a certificate),
	// PeerTLS calls peers; both nil: plain TCP.
	BusTLS, PeerTLS *tls.Config
	// etcd's client side: TLS (nil: plain) and a user, if etcd has auth on.
	EtcdTLS                *tls.Config
	EtcdUser, EtcdPassword string

	LeaseTTL    time.Duration // membership lease; 0: 5 s (etcd rounds to seconds, at least 1)
	Rebalance   time.Duration // pause between rebalancing steps; 0: 2 s
	MaxMoves    int           // shards a rebalancing step may move; 0: 2
	CallTimeout time.Duration // per remote call other than searches; 0: 1 s
	Logger      *slog.Logger  // nil: slog's default
}

// assignment is what the elected node publishes: which node owns each
// shard, by shard name, with a version every change increments.
type assignment struct {
	Version int64             `json:"version"`
	Regions string            `json:"regions"`
	Owners  map[string]string `json:"owners"`
}

// Node is this process's membership in a cluster: it keeps its lease
// alive, takes part in the election, watches membership and assignment,
// and swaps the routing table on every change. It is the router's
// router.Remote: the router asks it where a shard is served.
type Node struct {
	r      *router.Router
	cfg    NodeConfig
	cli    *clientv3.Client
	log    *slog.Logger
	prefix string

	mu      sync.Mutex
	rev     int64             // etcd revision the state below reflects
	members map[string]string // live node id -> bus address
	addrs   map[string]string // live node id -> client address
	assign  assignment
	modRev  int64            // mod revision of the assignment key, 0: none
	peers   map[string]*peer // by node id
	changed chan struct{}    // pinged on every change, for the leader

	table      atomic.Pointer[Table] // the routing in force
	owner      atomic.Bool           // registered under a live lease
	etcdOK     atomic.Bool
	leader     atomic.Bool
	registered atomic.Int64 // unix ns of the last registration
	tableAt    atomic.Int64 // unix ns of the last table swap

	health health // ops.go

	bus    *bus
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// member is what a node registers under its lease.
type member struct {
	Addr string `json:"addr"` // for clients
	Bus  string `json:"bus"`  // for other nodes
}

func (n *Node) membersKey() string    { return n.prefix + "members/" }
func (n *Node) assignmentKey() string { return n.prefix + "assignment" }
func (n *Node) electionKey() string   { return n.prefix + "election" }

// StartNode joins the cluster: it switches the router to cluster mode,
// registers under a lease, reads the current assignment and keeps
// everything current in the background until Close.
func StartNode(r *router.Router, cfg NodeConfig) (*Node, error) {
	switch {
	case len(cfg.Endpoints) == 0:
		return nil, errors.New("cluster: no etcd endpoint")
	case cfg.ID == "" || strings.Contains(cfg.ID, "/"):
		return nil, fmt.Errorf("cluster: bad node id %q", cfg.ID)
	case cfg.Advertise == "":
		return nil, errors.New("cluster: no advertised address")
	case cfg.Cluster == "":
		cfg.Cluster = "geoshard"
	}
	if r.PositionTTL() <= 0 {
		return nil, errors.New("cluster: position-ttl must be > 0: a handoff delete lost to a dead node is only cleaned up by the TTL")
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 5 * time.Second
	}
	if cfg.Rebalance <= 0 {
		cfg.Rebalance = 2 * time.Second
	}
	if cfg.MaxMoves <= 0 {
		cfg.MaxMoves = 2
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          2 * time.Second,
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
		TLS:                  cfg.EtcdTLS,
		Username:             cfg.EtcdUser,
		Password:             cfg.EtcdPassword,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd client: %w", err)
	}
	if cfg.Bus == "" {
		host, _, err := net.SplitHostPort(cfg.Advertise)
		if err != nil {
			return nil, fmt.Errorf("cluster: advertise %q: %w", cfg.Advertise, err)
		}
		cfg.Bus = net.JoinHostPort(host, "0")
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{r: r, cfg: cfg, cli: cli, log: cfg.Logger.With("node", cfg.ID),
		prefix:  "/geoshard/" + cfg.Cluster + "/",
		members: map[string]string{}, addrs: map[string]string{}, peers: map[string]*peer{},
		changed: make(chan struct{}, 1), cancel: cancel}
	// Until the first assignment arrives no shard is served anywhere.
	n.table.Store(newTable(0, cfg.ID, make([]string, r.ShardCount()), nil, cfg.Password))
	b, err := startBus(n.serveBus, cfg.Bus, cfg.BusTLS, cfg.Password, cfg.Logger)
	if err != nil {
		cancel()
		cli.Close()
		return nil, fmt.Errorf("cluster: bus: %w", err)
	}
	n.bus = b
	r.SetRemote(n)
	first, cancelFirst := context.WithTimeout(ctx, 5*time.Second)
	defer cancelFirst()
	if err := n.load(first); err != nil {
		cancel()
		b.close()
		cli.Close()
		return nil, fmt.Errorf("cluster: etcd %s: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	n.wg.Add(3)
	go n.membership(ctx)
	go n.watch(ctx)
	go n.checkHealth(ctx)
	return n, nil
}

// Close leaves the cluster: it revokes the lease (so others reassign at
// once rather than after the TTL) and stops every background task.
func (n *Node) Close() {
	n.cancel()
	n.wg.Wait()
	n.bus.close()
	n.cli.Close()
	n.mu.Lock()
	for _, p := range n.peers {
		p.close()
	}
	n.mu.Unlock()
}

// membership keeps this node registered: a session (lease with
// keep-alive), the member key under it, and a campaign for leadership.
func (n *Node) membership(ctx context.Context) {
	defer n.wg.Done()
	ttl := max(int(n.cfg.LeaseTTL.Round(time.Second)/time.Second), 1)
	for ctx.Err() == nil {
		sess, err := concurrency.NewSession(n.cli, concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			val, _ := json.Marshal(member{Addr: n.cfg.Advertise, Bus: n.bus.addr()})
			_, err = n.cli.Put(pctx, n.membersKey()+n.cfg.ID, string(val), clientv3.WithLease(sess.Lease()))
			cancel()
			if err != nil {
				sess.Close()
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				n.etcdDown("cannot register", err)
				sleep(ctx, 500*time.Millisecond)
			}
			continue
		}
		n.owner.Store(true)
		n.etcdOK.Store(true)
		n.registered.Store(time.Now().UnixNano())
		n.log.Info("cluster: registered", "lease_ttl_s", ttl, "advertise", n.cfg.Advertise)
		lctx, stopLeading := context.WithCancel(ctx)
		leading := make(chan struct{})
		go func() {
			defer close(leading)
			n.lead(lctx, sess)
		}()
		select {
		case <-ctx.Done():
		case <-sess.Done():
		}
		stopLeading()
		<-leading
		if ctx.Err() != nil {
			// Leaving: revoke, so the others need not wait for the TTL.
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			n.cli.Revoke(rctx, sess.Lease())
			cancel()
			sess.Close()
			return
		}
		// The keep-alive failed. If etcd answers, our lease is gone and our
		// shards are being given away: stop acting as their owner until
		// registered again. If it does not, nobody can reassign anything:
		// keep serving with the last map.
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err = n.cli.Get(cctx, n.assignmentKey())
		cancel()
		if err == nil {
			n.owner.Store(false)
			n.log.Warn("cluster: lease lost; not acting as owner until registered again")
		} else {
			n.etcdDown("lease keep-alive failed", err)
		}
	}
}

func (n *Node) etcdDown(what string, err error) {
	if n.etcdOK.Swap(false) {
		n.log.Warn("cluster: etcd unreachable, serving with the last map", "what", what, "err", err,
			"table_version", n.Table().Version)
	}
}

// lead campaigns for leadership and, once elected, keeps the assignment
// current until ctx ends or the session is lost.
func (n *Node) lead(ctx context.Context, sess *concurrency.Session) {
	e := concurrency.NewElection(sess, n.electionKey())
	if err := e.Campaign(ctx, n.cfg.ID); err != nil {
		return
	}
	n.leader.Store(true)
	defer n.leader.Store(false)
	n.log.Info("cluster: elected; assigning shards")
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		e.Resign(rctx)
		cancel()
	}()
	tick := time.NewTicker(n.cfg.Rebalance)
	defer tick.Stop()
	for {
		moved := n.assignOnce(ctx, e)
		wait := tick.C
		if moved {
			// Let the move settle (its shards refill from pings) before
			// the next step; dead nodes' shards do not wait for this.
			sleep(ctx, n.cfg.Rebalance)
		}
		select {
		case <-ctx.Done():
			return
		case <-n.changed:
		case <-wait:
		}
	}
}

// assignOnce publishes the next assignment if it differs; the
// transaction fails if the assignment changed meanwhile or this node is no
// longer the elected one. It reports whether a rebalancing move was made.
func (n *Node) assignOnce(ctx context.Context, e *concurrency.Election) bool {
	m := n.r.Regions()
	n.mu.Lock()
	cur := make([]string, m.Len())
	for i := range cur {
		cur[i] = n.assign.Owners[m.Name(shardID(i))]
	}
	live := make([]string, 0, len(n.members))
	for id := range n.members {
		live = append(live, id)
	}
	version, modRev := n.assign.Version, n.modRev
	n.mu.Unlock()
	dead := 0
	for _, o := range cur {
		if !slices.Contains(live, o) {
			dead++
		}
	}
	next, changed := plan(cur, live, n.cfg.MaxMoves)
	if !changed {
		return false
	}
	a := assignment{Version: version + 1, Regions: m.Version(), Owners: map[string]string{}}
	for i, o := range next {
		a.Owners[m.Name(shardID(i))] = o
	}
	data, err := json.Marshal(a)
	if err != nil {
		n.log.Error("cluster: encode assignment", "err", err)
		return false
	}
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := n.cli.Txn(tctx).If(
		clientv3.Compare(clientv3.CreateRevision(e.Key()), "=", e.Rev()),
		clientv3.Compare(clientv3.ModRevision(n.assignmentKey()), "=", modRev),
	).Then(clientv3.OpPut(n.assignmentKey(), string(data))).Commit()
	switch {
	case err != nil:
		n.etcdDown("publish assignment", err)
		return false
	case !resp.Succeeded:
		// Someone else changed it, or we lost the election: the watch
		// brings the news; try again then.
		return false
	}
	n.log.Info("cluster: published assignment", "version", a.Version, "live", len(live),
		"reassigned_from_dead", dead)
	return dead == 0
}

// load reads everything under the prefix at one revision.
func (n *Node) load(ctx context.Context) error {
	resp, err := n.cli.Get(ctx, n.prefix, clientv3.WithPrefix())
	if err != nil {
		return err
	}
	n.etcdOK.Store(true)
	n.mu.Lock()
	defer n.mu.Unlock()
	if resp.Header.Revision < n.rev {
		return nil
	}
	n.members, n.addrs = map[string]string{}, map[string]string{}
	n.assign, n.modRev = assignment{}, 0
	for _, kv := range resp.Kvs {
		n.applyKV(string(kv.Key), kv.Value, kv.ModRevision, false)
	}
	n.rev = resp.Header.Revision
	n.swapTable()
	return nil
}

// refresh re-reads the state now; a version mismatch calls it.
func (n *Node) refresh(ctx context.Context) {
	if err := n.load(ctx); err != nil {
		n.etcdDown("refresh", err)
	}
}

// watch follows every change after the revision last read, re-reading
// everything when the watch breaks (compaction, etcd restart).
func (n *Node) watch(ctx context.Context) {
	defer n.wg.Done()
	for ctx.Err() == nil {
		n.mu.Lock()
		from := n.rev + 1
		n.mu.Unlock()
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for wr := range n.cli.Watch(wctx, n.prefix, clientv3.WithPrefix(), clientv3.WithRev(from)) {
			if err := wr.Err(); err != nil {
				n.etcdDown("watch", err)
				break
			}
			n.etcdOK.Store(true)
			n.mu.Lock()
			for _, ev := range wr.Events {
				if ev.Kv.ModRevision <= n.rev {
					continue // a refresh already read past it
				}
				n.applyKV(string(ev.Kv.Key), ev.Kv.Value, ev.Kv.ModRevision, ev.Type == clientv3.EventTypeDelete)
			}
			n.rev = max(n.rev, wr.Header.Revision)
			n.swapTable()
			n.mu.Unlock()
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		sleep(ctx, 200*time.Millisecond)
		if err := n.load(ctx); err != nil {
			n.etcdDown("reload", err)
			sleep(ctx, 300*time.Millisecond)
		}
	}
}

// applyKV folds one key into the state; the caller holds n.mu.
func (n *Node) applyKV(key string, val []byte, modRev int64, deleted bool) {
	switch {
	case strings.HasPrefix(key, n.membersKey()):
		id := strings.TrimPrefix(key, n.membersKey())
		var m member
		switch {
		case deleted:
			delete(n.members, id)
			delete(n.addrs, id)
		case json.Unmarshal(val, &m) != nil || m.Bus == "":
			n.log.Error("cluster: bad member record in etcd", "node", id)
		default:
			n.members[id], n.addrs[id] = m.Bus, m.Addr
		}
	case key == n.assignmentKey():
		if deleted {
			n.assign, n.modRev = assignment{}, 0
			return
		}
		var a assignment
		if err := json.Unmarshal(val, &a); err != nil {
			n.log.Error("cluster: bad assignment in etcd", "err", err)
			return
		}
		if a.Regions != n.r.Regions().Version() {
			n.log.Error("cluster: assignment is for another region map", "theirs", a.Regions,
				"ours", n.r.Regions().Version())
		}
		n.assign, n.modRev = a, modRev
	}
}

// swapTable builds the routing table from the state and puts it in force;
// the caller holds n.mu.
func (n *Node) swapTable() {
	m := n.r.Regions()
	owners := make([]string, m.Len())
	for i := range owners {
		owners[i] = n.assign.Owners[m.Name(shardID(i))]
	}
	live := map[string]*peer{}
	for id, addr := range n.members {
		if id == n.cfg.ID {
			continue
		}
		p := n.peers[id]
		if p == nil || p.addr != addr {
			if p != nil {
				p.close()
			}
			p = newPeer(id, addr, n.cfg.CallTimeout, n.cfg.PeerTLS)
			n.peers[id] = p
		}
		live[id] = p
	}
	for id, p := range n.peers {
		if _, ok := live[id]; !ok {
			p.close()
			delete(n.peers, id)
		}
	}
	old := n.Table()
	t := newTable(n.assign.Version, n.cfg.ID, owners, live, n.cfg.Password)
	n.table.Store(t)
	cut := time.Now().UnixNano()
	for i := range owners {
		if id := shardID(i); old != nil && old.Local(id) != t.Local(id) {
			go n.r.ClearShard(id, cut)
		}
	}
	if old == nil || old.Version != t.Version || old.DownShards() != t.DownShards() || len(old.nodes) != len(t.nodes) {
		n.tableAt.Store(time.Now().UnixNano())
		n.log.Info("cluster: routing table", "version", t.Version, "nodes", len(live)+1,
			"local_shards", t.LocalShards(), "down_shards", t.DownShards())
	}
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

// Status reports the node's view of the cluster.
func (n *Node) Status() router.Status {
	n.mu.Lock()
	members := len(n.members)
	n.mu.Unlock()
	t := n.Table()
	st := router.Status{
		NodeID: n.cfg.ID, Advertise: n.cfg.Advertise, Leader: n.leader.Load(), EtcdOK: n.etcdOK.Load(),
		Owner: n.owner.Load(), Members: members, TableVersion: t.Version,
		LocalShards: t.LocalShards(), DownShards: t.DownShards(),
		TableAge:     time.Duration(time.Now().UnixNano() - n.tableAt.Load()),
		RemoteErrors: n.r.RemoteErrors(),
	}
	n.statusExtra(&st, t)
	return st
}

// Table returns the routing table in force.
func (n *Node) Table() *Table { return n.table.Load() }

// View is the router.Remote side of the table.
func (n *Node) View() router.View { return n.table.Load() }

// Refresh re-reads the assignment now.
func (n *Node) Refresh(ctx context.Context) { n.refresh(ctx) }

// CallTimeout bounds a remote call other than a search.
func (n *Node) CallTimeout() time.Duration { return n.cfg.CallTimeout }

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
