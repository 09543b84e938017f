package cluster

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"geoshard/router"
	"geoshard/shard"
)

// What an operator sees of the cluster: which peers answer right now
// (a dead node stays registered until its lease runs out, and its shards
// are lost to searches meanwhile, so membership alone says too little),
// who leads, and the overview behind GEOSHARD NODES and /metrics.

// health is what the last round of checks found.
type health struct {
	mu     sync.Mutex
	failed map[string]string // node id -> why its last check failed
	leader string            // the elected node's id, "" unknown
}

// healthEvery is the pause between health checks: a quarter of the
// lease, so a hung node shows as unreachable well before its lease ends,
// and at most a second.
func (n *Node) healthEvery() time.Duration {
	return min(max(n.cfg.LeaseTTL/4, 100*time.Millisecond), time.Second)
}

// checkHealth pings every peer on the bus and reads who leads, until ctx
// ends. A peer fails when it does not answer within the interval (at
// least half a second, so a loaded machine is not taken for a dead one).
func (n *Node) checkHealth(ctx context.Context) {
	defer n.wg.Done()
	every := n.healthEvery()
	limit := max(every, 500*time.Millisecond)
	var leaderRead time.Time
	for ctx.Err() == nil {
		n.mu.Lock()
		peers := make([]*peer, 0, len(n.peers))
		for _, p := range n.peers {
			peers = append(peers, p)
		}
		n.mu.Unlock()
		failed := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range peers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pctx, cancel := context.WithTimeout(ctx, limit)
				defer cancel()
				if _, err := p.c.do(pctx, "GEOSHARD", "PING", n.cfg.Password, "0"); err != nil {
					mu.Lock()
					failed[p.id] = err.Error()
					mu.Unlock()
				}
			}()
		}
		// Who leads changes rarely: once known, read it at most once a second.
		var leader string
		lerr := errSkipped
		if (time.Since(leaderRead) >= time.Second || n.leaderID() == "") && !n.leader.Load() {
			leader, lerr = n.readLeader(ctx, limit)
			leaderRead = time.Now()
		}
		wg.Wait()
		if ctx.Err() != nil {
			return
		}
		n.mu.Lock()
		for _, p := range peers {
			if n.peers[p.id] != p {
				delete(failed, p.id) // replaced meanwhile: its old client was closed
			}
		}
		n.mu.Unlock()
		n.health.mu.Lock()
		n.health.failed = failed
		n.failing.Store(&failed)
		if lerr == nil {
			n.health.leader = leader
		}
		n.health.mu.Unlock()
		sleep(ctx, every)
	}
}

// errSkipped marks a round that did not read the leader.
var errSkipped = errors.New("skipped")

// readLeader names the elected node: the oldest candidate under the
// election prefix (concurrency.Election's rule).
func (n *Node) readLeader(ctx context.Context, timeout time.Duration) (string, error) {
	gctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := n.cli.Get(gctx, n.electionKey()+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return "", err
	}
	if len(resp.Kvs) == 0 {
		return "", nil
	}
	return string(resp.Kvs[0].Value), nil
}

// unreachable reports the nodes whose last health check failed.
func (n *Node) unreachable() map[string]string {
	n.health.mu.Lock()
	defer n.health.mu.Unlock()
	return n.health.failed
}

func (n *Node) leaderID() string {
	if n.leader.Load() {
		return n.cfg.ID
	}
	n.health.mu.Lock()
	defer n.health.mu.Unlock()
	return n.health.leader
}

// downNow counts the shards no answering node holds: unassigned, owned
// by a node whose lease is gone, or by one failing health checks.
func (n *Node) downNow(t *Table) int {
	bad := n.unreachable()
	down := 0
	for i, o := range t.Owner {
		if t.Down(shard.ID(i)) || n.failingHolders(t, i, o, bad) {
			down++
		}
	}
	return down
}

// failingHolders reports whether neither the shard's primary nor its
// replica answers health checks (a replica answers for a failing primary).
func (n *Node) failingHolders(t *Table, i int, primary string, bad map[string]string) bool {
	if _, failing := bad[primary]; !failing {
		return false
	}
	r := ""
	if i < len(t.Replica) {
		r = t.Replica[i]
	}
	_, rfailing := bad[r]
	return r == "" || rfailing || t.Down(shard.ID(i))
}

// serveBus answers the operator's bus commands, PING and SHARDS, which
// need neither a lease nor the caller's table version, and hands every
// other one to ServeInternal. The bus has checked the password.
func (n *Node) serveBus(args [][]byte, w Replier) {
	switch strings.ToLower(string(args[1])) {
	case "ping":
		w.BulkString("PONG")
	case "shards":
		// Pairs of shard id and member copies, for the shards served here.
		t := n.Table()
		counts := n.r.ShardMembers()
		var out []int64
		for i, c := range counts {
			if t.Local(shard.ID(i)) {
				out = append(out, int64(i), c)
			}
		}
		w.Array(len(out))
		for _, v := range out {
			w.Int(v)
		}
	default:
		n.ServeInternal(args, w)
	}
}

// shardCounts asks a peer for the sizes of the shards it serves.
func (p *peer) shardCounts(ctx context.Context, pass string) (map[int]int64, error) {
	v, err := p.do(ctx, pass, 0, "GEOSHARD.SHARDS")
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	out := map[int]int64{}
	for i := 0; i+1 < len(arr); i += 2 {
		id, _ := arr[i].(int64)
		c, _ := arr[i+1].(int64)
		out[int(id)] = c
	}
	return out, nil
}

// Overview is the whole cluster as this node sees it. With counts it
// asks every answering node for its shards' sizes, within ctx.
func (n *Node) Overview(ctx context.Context, counts bool) router.Overview {
	t := n.Table()
	m := n.r.Regions()
	n.mu.Lock()
	bus := make(map[string]string, len(n.members))
	for id, b := range n.members {
		bus[id] = b
	}
	addrs := make(map[string]string, len(n.addrs))
	for id, a := range n.addrs {
		addrs[id] = a
	}
	peers := make(map[string]*peer, len(n.peers))
	for id, p := range n.peers {
		peers[id] = p
	}
	n.mu.Unlock()
	bad := n.unreachable()
	o := router.Overview{Self: n.cfg.ID, Leader: n.leaderID(), TableVersion: t.Version}
	if o.Leader == "" {
		// Not read yet (a node just started): ask etcd now.
		if l, err := n.readLeader(ctx, time.Second); err == nil {
			o.Leader = l
		}
	}
	if _, ok := bus[n.cfg.ID]; !ok {
		bus[n.cfg.ID] = n.bus.addr() // registering again after a lost lease
	}
	load := map[string]int{}
	for _, owner := range t.Owner {
		load[owner]++
	}
	for id, b := range bus {
		mv := router.MemberView{ID: id, Addr: addrs[id], Bus: b, Self: id == n.cfg.ID, Shards: load[id]}
		switch problem, failing := bad[id]; {
		case mv.Self:
			mv.Addr, mv.Up = n.cfg.Advertise, n.owner.Load()
			if !mv.Up {
				mv.Problem = "lease lost"
			}
		case failing:
			mv.Problem = problem
		default:
			mv.Up = true
		}
		o.Members = append(o.Members, mv)
	}
	slices.SortFunc(o.Members, func(a, b router.MemberView) int { return strings.Compare(a.ID, b.ID) })
	sizes := n.shardSizes(ctx, counts, t, peers, bad)
	for i, owner := range t.Owner {
		sv := router.ShardView{Name: m.Name(shard.ID(i)), Primary: owner, State: router.ShardUp, Members: -1}
		if i < len(t.Replica) {
			sv.Replica = t.Replica[i]
		}
		failing := n.failingHolders(t, i, owner, bad)
		switch {
		case owner == "":
			sv.State = router.ShardUnassigned
		case t.Down(shard.ID(i)):
			sv.State = router.ShardDown
		case failing:
			sv.State = router.ShardUnreachable
		}
		if c, ok := sizes[i]; ok {
			sv.Members = c
		}
		o.Shards = append(o.Shards, sv)
	}
	return o
}

// shardSizes collects member counts: this node's own, and with counts
// those of every answering peer, asked in parallel.
func (n *Node) shardSizes(ctx context.Context, counts bool, t *Table, peers map[string]*peer, bad map[string]string) map[int]int64 {
	sizes := map[int]int64{}
	for i, c := range n.r.ShardMembers() {
		if t.Local(shard.ID(i)) {
			sizes[i] = c
		}
	}
	if !counts {
		return sizes
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for id, p := range peers {
		if _, failing := bad[id]; failing {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := p.shardCounts(ctx, n.cfg.Password)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for i, c := range got {
				if i < len(t.Owner) && t.Owner[i] == id {
					sizes[i] = c
				}
			}
		}()
	}
	wg.Wait()
	return sizes
}

// statusExtra fills in what Status reports beyond the table.
func (n *Node) statusExtra(st *router.Status, t *Table) {
	st.LeaderID = n.leaderID()
	st.BusAuth = n.cfg.Password != ""
	st.BusTLS = n.cfg.BusTLS != nil
	st.DownShards = n.downNow(t)
}
