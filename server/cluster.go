package server

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"geoshard/cluster"
)

// ClusterOptions are the directives of cluster mode. With no
// cluster-etcd the server is a single node and never talks to etcd.
type ClusterOptions struct {
	Etcd      []string      // "cluster-etcd": etcd endpoints
	Name      string        // "cluster-name": the cluster's key prefix in etcd
	NodeID    string        // "node-id": unique in the cluster
	Advertise string        // "advertise": host:port other nodes dial; "" = the listening address
	Password  string        // "cluster-password": carried by node-to-node commands
	BusPort   int           // "cluster-bus-port": node-to-node listener; 0 = any free port
	LeaseTTL  time.Duration // "cluster-lease-ttl": membership lease, seconds
	Rebalance time.Duration // "cluster-rebalance-interval": between rebalancing steps, seconds

	fanoutGiven bool // fanout-timeout was set: the cluster default does not apply
}

// clusterFanout is fanout-timeout's default in cluster mode. A remote
// shard's part of a search crosses the bus: a search of one big shard
// (12,344 hits) through a non-owner took p50 11-13 ms, p90 18-20 ms, max
// 26 ms on the 2-core test machine, against 3-9 ms on the owner, and past
// 50 ms when that machine ran at load 20 (tests/TestClusterRemoteSearch,
// TestClusterIdleBus); 50 ms then answered nothing for the shard.
const clusterFanout = 250 * time.Millisecond

func init() {
	directives = append(directives,
		directive{name: "cluster-etcd", multi: true,
			set: func(o *Options, vals []string) error {
				var eps []string
				for _, v := range vals {
					for _, e := range strings.Split(v, ",") {
						if e = strings.TrimSpace(e); e != "" {
							eps = append(eps, e)
						}
					}
				}
				o.Cluster.Etcd = eps
				return nil
			},
			get: func(o *Options) string { return strings.Join(o.Cluster.Etcd, ",") }},
		stringDirective("cluster-name", func(o *Options) *string { return &o.Cluster.Name }),
		stringDirective("node-id", func(o *Options) *string { return &o.Cluster.NodeID }),
		stringDirective("advertise", func(o *Options) *string { return &o.Cluster.Advertise }),
		stringDirective("cluster-password", func(o *Options) *string { return &o.Cluster.Password }),
		intDirective("cluster-bus-port", 0, 65535, func(o *Options) *int { return &o.Cluster.BusPort }),
		secondsDirective("cluster-lease-ttl", func(o *Options) *time.Duration { return &o.Cluster.LeaseTTL }),
		secondsDirective("cluster-rebalance-interval", func(o *Options) *time.Duration { return &o.Cluster.Rebalance }),
	)
	for i, d := range directives {
		if d.name == "fanout-timeout" {
			set := d.set
			directives[i].set = func(o *Options, vals []string) error {
				o.Cluster.fanoutGiven = true
				return set(o, vals)
			}
		}
	}
}

// checkCluster refuses options cluster mode cannot run with. A handoff's
// delete lost to a dead node is cleaned up only by the position TTL, so
// cluster mode needs one.
func (o Options) checkCluster() error {
	c := o.Cluster
	if len(c.Etcd) == 0 {
		return nil
	}
	switch {
	case o.PositionTTL <= 0:
		return errors.New("cluster mode needs position-ttl > 0: copies a lost handoff delete leaves behind expire only by it")
	case c.NodeID == "":
		return errors.New("cluster mode needs node-id")
	}
	if c.Advertise != "" {
		if _, _, err := net.SplitHostPort(c.Advertise); err != nil {
			return fmt.Errorf("advertise %q: %w", c.Advertise, err)
		}
	}
	return nil
}

// joinCluster registers this node once it listens, and returns what
// leaves the cluster again; a single node returns a no-op.
func (s *Server) joinCluster() (leave func(), err error) {
	c := s.opts.Cluster
	if len(c.Etcd) == 0 {
		return func() {}, nil
	}
	adv := c.Advertise
	if adv == "" {
		adv = s.Addr().String()
	}
	host, _, err := net.SplitHostPort(adv)
	if err != nil {
		return nil, fmt.Errorf("advertise %q: %w", adv, err)
	}
	n, err := cluster.StartNode(s.Router(), cluster.NodeConfig{
		Endpoints: c.Etcd, Cluster: c.Name, ID: c.NodeID, Advertise: adv,
		Bus:      net.JoinHostPort(host, strconv.Itoa(c.BusPort)),
		Password: c.Password, LeaseTTL: c.LeaseTTL, Rebalance: c.Rebalance, Logger: s.log,
	})
	if err != nil {
		return nil, err
	}
	if !c.fanoutGiven {
		s.Router().SetFanoutTimeout(clusterFanout)
	}
	s.log.Info("cluster mode", "etcd", strings.Join(c.Etcd, ","), "cluster", c.Name,
		"node", c.NodeID, "advertise", adv)
	return n.Close, nil
}
