package cluster

// The elected node's work: publish the assignment of shards to nodes,
// one bounded rebalancing step at a time (the plan itself is assign.go).

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// assignment is what the elected node publishes: which node holds each
// shard as primary and as replica, by shard name, with a version every
// change increments. Since is the version at which each replica was
// placed: its node reports the fill of that placement (synced records).
type assignment struct {
	Version  int64             `json:"version"`
	Regions  string            `json:"regions"`
	Owners   map[string]string `json:"owners"`
	Replicas map[string]string `json:"replicas,omitempty"`
	Since    map[string]int64  `json:"since,omitempty"`
	Starts   map[string]int64  `json:"starts,omitempty"` // each live node's process start when planned
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
	cur := n.placementLocked(m.Len())
	live := make([]string, 0, len(n.members))
	starts, restarted := map[string]int64{}, 0
	for id := range n.members {
		starts[id] = n.starts[id]
		if s := n.assign.Starts[id]; s != 0 && s != n.starts[id] {
			// Restarted within its lease: its copies are gone. Planned as
			// dead this once (its replicas take over), as new after.
			restarted++
			continue
		}
		live = append(live, id)
	}
	version, modRev, old := n.assign.Version, n.modRev, n.assign
	n.mu.Unlock()
	dead := 0
	for _, o := range cur.primary {
		if !slices.Contains(live, o) {
			dead++
		}
	}
	if dead > 0 && n.settling() {
		return false // the lead loop asks again every rebalancing interval
	}
	n.mu.Lock()
	awaiting := n.awaitingHolder(cur, live)
	n.mu.Unlock()
	if awaiting {
		return false // as settling, for a shard both of whose holders went missing (away.go)
	}
	next, changed := plan(cur, live, n.cfg.Replicas > 0, n.cfg.MaxMoves)
	if !changed && restarted == 0 && maps.Equal(starts, old.Starts) {
		return false
	}
	a := assignment{Version: version + 1, Regions: m.Version(), Owners: map[string]string{},
		Replicas: map[string]string{}, Since: map[string]int64{}, Starts: starts}
	for i, o := range next.primary {
		name := m.Name(shardID(i))
		a.Owners[name] = o
		if r := next.replica[i]; r != "" {
			a.Replicas[name], a.Since[name] = r, version+1
			if old.Replicas[name] == r {
				a.Since[name] = old.Since[name]
			}
		}
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

// placementLocked is the published assignment as plan takes it, with
// each replica's fill as its node reported it; the caller holds n.mu.
func (n *Node) placementLocked(shards int) placement {
	m := n.r.Regions()
	p := placement{primary: make([]string, shards), replica: make([]string, shards), synced: make([]bool, shards)}
	for i := range p.primary {
		name := m.Name(shardID(i))
		p.primary[i], p.replica[i] = n.assign.Owners[name], n.assign.Replicas[name]
		rec, ok := n.synced[name]
		p.synced[i] = ok && rec.Node == p.replica[i] && rec.Since == n.assign.Since[name]
		// Its record goes with this node's lease; the fill it reports
		// does not: a replica away gets no write (router/replica_gone.go).
		mark, mine := n.filling[name]
		p.synced[i] = p.synced[i] || mine && mark.done && p.replica[i] == n.cfg.ID && mark.since == n.assign.Since[name]
	}
	return p
}
