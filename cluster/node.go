package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
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
	Replicas    int           // replicas per shard: 0 or 1 (cluster-replicas)
	Logger      *slog.Logger  // nil: slog's default

	fillPause   func(shard string) // tests: runs between a fill's copy and its merge
	servePause  func(name string)  // tests: runs between an internal command's admission and its work
	rejoinPause func()             // tests: runs before registering again after the session ended
	// tests: small calls to peers on pooled connections too, not one
	// pipelined connection, so that several can wait in a peer's
	// servePause at once (buspipe.go)
	pipelineOff bool
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
	modRev  int64                 // mod revision of the assignment key, 0: none
	peers   map[string]*peer      // by node id
	changed chan struct{}         // pinged on every change, for the leader
	synced  map[string]syncRecord // shard name -> the fill its replica reported
	starts  map[string]int64      // live node id -> its process start
	started int64                 // this process's start (unix ns)
	filling map[string]fillMark   // shard name -> the replica placement this node fills or filled
	lease   clientv3.LeaseID      // this node's lease while registered
	goneAt  map[string]time.Time  // node id -> when its member record went (away.go)

	table atomic.Pointer[Table] // the routing in force
	// serving is held shared by each internal command from its version
	// check to its last write, and exclusively to swap the table: a
	// write admitted under one version lands before the node serves the
	// next one (a new replica's fill copy among others), so the copy
	// cannot miss a write the writer was told is stored.
	serving    sync.RWMutex
	unpin      func()      // serving.RUnlock as a value, made once: Pin hands it out on every write
	owner      atomic.Bool // registered under a live lease
	etcdOK     atomic.Bool
	outage     atomic.Bool  // etcd failed since it last answered
	etcdBack   atomic.Int64 // unix ns etcd last came back after an outage
	leader     atomic.Bool
	registered atomic.Int64 // unix ns of the last registration
	tableAt    atomic.Int64 // unix ns of the last table swap

	health  health                            // ops.go
	failing atomic.Pointer[map[string]string] // the latest health checks' failures, for the tables

	bus    *bus
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// member is what a node registers under its lease.
type member struct {
	Addr  string `json:"addr"`            // for clients
	Bus   string `json:"bus"`             // for other nodes
	Start int64  `json:"start,omitempty"` // this process's start (unix ns): a restart shows as a new one
}

func (n *Node) membersKey() string    { return n.prefix + "members/" }
func (n *Node) assignmentKey() string { return n.prefix + "assignment" }
func (n *Node) electionKey() string   { return n.prefix + "election" }

// StartNode joins the cluster: it switches the router to cluster mode,
// registers under a lease, reads the current assignment and keeps
// everything current in the background until Close.
func StartNode(r *router.Router, cfg NodeConfig) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if r.PositionTTL() <= 0 {
		return nil, errors.New("cluster: position-ttl must be > 0: a handoff delete lost to a dead node is only cleaned up by the TTL")
	}
	cli, err := dialEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd client: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{r: r, cfg: cfg, cli: cli, log: cfg.Logger.With("node", cfg.ID),
		prefix:  "/geoshard/" + cfg.Cluster + "/",
		members: map[string]string{}, addrs: map[string]string{}, peers: map[string]*peer{},
		synced: map[string]syncRecord{}, filling: map[string]fillMark{}, ctx: ctx,
		starts: map[string]int64{}, started: time.Now().UnixNano(),
		changed: make(chan struct{}, 1), cancel: cancel}
	n.unpin = n.serving.RUnlock
	// Until the first assignment arrives no shard is served anywhere.
	n.table.Store(newTable(0, cfg.ID, make([]string, r.ShardCount()), nil, nil, nil, false, cfg.Password))
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

// withDefaults checks the required fields and fills in the optional ones.
func (cfg NodeConfig) withDefaults() (NodeConfig, error) {
	switch {
	case len(cfg.Endpoints) == 0:
		return cfg, errors.New("cluster: no etcd endpoint")
	case cfg.ID == "" || strings.Contains(cfg.ID, "/"):
		return cfg, fmt.Errorf("cluster: bad node id %q", cfg.ID)
	case cfg.Advertise == "":
		return cfg, errors.New("cluster: no advertised address")
	case cfg.Cluster == "":
		cfg.Cluster = "geoshard"
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
	if cfg.Bus == "" {
		host, _, err := net.SplitHostPort(cfg.Advertise)
		if err != nil {
			return cfg, fmt.Errorf("cluster: advertise %q: %w", cfg.Advertise, err)
		}
		cfg.Bus = net.JoinHostPort(host, "0")
	}
	return cfg, nil
}

// dialEtcd makes the etcd client, tuned to come back quickly after an
// etcd outage.
func dialEtcd(cfg NodeConfig) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
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
}

// Close leaves the cluster: it revokes the lease (so others reassign at
// once rather than after the TTL) and stops every background task.
func (n *Node) Close() {
	n.cancel()
	// The bus first: a command it serves may swap the table and start a
	// fill on n.wg, which must not happen while Wait runs.
	n.bus.close()
	n.wg.Wait()
	n.cli.Close()
	n.mu.Lock()
	for _, p := range n.peers {
		p.close()
	}
	n.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
