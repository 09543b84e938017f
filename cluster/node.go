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
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

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
	outage     atomic.Bool  // etcd failed since it last answered
	etcdBack   atomic.Int64 // unix ns etcd last came back after an outage
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
		DialTimeout:          5 * time.Second, // a TLS handshake and a password check included
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
		// gRPC's default reconnect backoff grows to two minutes; a node
		// must be back within a lease TTL of etcd's return, or its lease
		// lapses and it looks dead.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second,
		})},
		TLS:      cfg.EtcdTLS,
		Username: cfg.EtcdUser,
		Password: cfg.EtcdPassword,
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
	n.wg.Add(4)
	go n.membership(ctx)
	go n.watch(ctx)
	go n.checkEtcd(ctx)
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
		n.etcdUp()
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
	if dead > 0 && n.settling() {
		return false // the lead loop asks again every rebalancing interval
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

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
