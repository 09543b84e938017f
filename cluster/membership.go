package cluster

// This node's lease: registered under it while it lives, campaigning for
// leadership meanwhile, revoked on the way out.

import (
	"context"
	"encoding/json"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// membership keeps this node registered: a session (lease with
// keep-alive), the member key under it, and a campaign for leadership.
func (n *Node) membership(ctx context.Context) {
	defer n.wg.Done()
	ttl := max(int(n.cfg.LeaseTTL.Round(time.Second)/time.Second), 1)
	for again := false; ctx.Err() == nil; again = true {
		if again && n.cfg.rejoinPause != nil {
			n.cfg.rejoinPause()
		}
		sess, err := concurrency.NewSession(n.cli, concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			val, _ := json.Marshal(member{Addr: n.cfg.Advertise, Bus: n.bus.addr(), Start: n.started})
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
		n.mu.Lock()
		n.lease = sess.Lease()
		n.mu.Unlock()
		n.reportFills(ctx)
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
