package cluster

import (
	"context"
	"time"
)

// etcd health as every node sees it. The lease keep-alive and the watch
// retry quietly while etcd is away, so without asking etcd outright a
// node that is not the leader went on reporting cluster_etcd:ok through
// a 20 s outage (issue 12, defect 7).

// checkEtcd asks etcd for the assignment a few times per lease TTL, so
// every node notices an outage, and its end, within one TTL.
func (n *Node) checkEtcd(ctx context.Context) {
	defer n.wg.Done()
	every := max(n.cfg.LeaseTTL/4, 100*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, max(n.cfg.LeaseTTL/2, 200*time.Millisecond))
		_, err := n.cli.Get(cctx, n.assignmentKey())
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			n.etcdDown("health check", err)
		default:
			n.etcdUp()
		}
	}
}

// etcdUp records that etcd answered; after an outage it notes when etcd
// came back, which holds off reassigning the shards of nodes that seem
// dead until every node had time to register again (settling).
func (n *Node) etcdUp() {
	if n.etcdOK.Swap(true) {
		return
	}
	if n.outage.Swap(false) {
		n.etcdBack.Store(time.Now().UnixNano())
		n.log.Info("cluster: etcd reachable again")
	}
}

func (n *Node) etcdDown(what string, err error) {
	n.outage.Store(true)
	if n.etcdOK.Swap(false) {
		n.log.Warn("cluster: etcd unreachable, serving with the last map", "what", what, "err", err,
			"table_version", n.Table().Version)
	}
}

// settling reports whether etcd came back from an outage too recently to
// take a missing member for a dead node: every node's lease lapsed
// during the outage, and each registers again only once its client has
// reconnected. Moving a live node's shards loses their positions (the
// new owner starts empty), so a missing member waits two lease TTLs.
func (n *Node) settling() bool {
	back := n.etcdBack.Load()
	return back != 0 && time.Since(time.Unix(0, back)) < 2*n.cfg.LeaseTTL
}
