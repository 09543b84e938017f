package server

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"geoshard/router"
)

// clusterCollector is /metrics' view of cluster mode: what GEOSHARD NODES
// and INFO cluster say, as this node sees it at scrape time. It asks no
// other node (shard sizes are this node's own, in geoshard_shard_members),
// so a scrape never waits on a peer. A single node reports nothing here.
type clusterCollector struct{ s *Server }

var (
	clusterMember = prometheus.NewDesc("geoshard_cluster_member_up",
		"Live members (registered under a lease): 1 answers health checks, 0 does not.", []string{"node", "addr"}, nil)
	clusterLeader = prometheus.NewDesc("geoshard_cluster_leader_info",
		"The elected node, by id.", []string{"node"}, nil)
	clusterShardOwner = prometheus.NewDesc("geoshard_cluster_shard_owner_info",
		"Each shard's primary and state (up, down, unreachable, unassigned).", []string{"shard", "primary", "state"}, nil)
	clusterShardsDown = prometheus.NewDesc("geoshard_cluster_shards_down",
		"Shards no answering node serves now: missing from searches.", nil, nil)
	clusterLocalShards = prometheus.NewDesc("geoshard_cluster_local_shards",
		"Shards this node serves.", nil, nil)
	clusterTableVersion = prometheus.NewDesc("geoshard_cluster_table_version",
		"Version of the routing table in force.", nil, nil)
	clusterEtcdUp = prometheus.NewDesc("geoshard_cluster_etcd_up",
		"1 while etcd answers; 0: serving with the last known map.", nil, nil)
	clusterLeaseUp = prometheus.NewDesc("geoshard_cluster_lease_up",
		"1 while this node holds its membership lease.", nil, nil)
	clusterRemoteErrors = prometheus.NewDesc("geoshard_cluster_remote_errors_total",
		"Calls to other nodes that failed (timeouts included).", nil, nil)
)

// Describe implements prometheus.Collector (unchecked, like serverCollector).
func (clusterCollector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (cc clusterCollector) Collect(ch chan<- prometheus.Metric) {
	r := cc.s.Router()
	st, ok := r.ClusterStatus()
	if !ok {
		return
	}
	o, _ := r.ClusterOverview(context.Background(), false)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	bit := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	for _, m := range o.Members {
		gauge(clusterMember, bit(m.Up), m.ID, m.Addr)
	}
	if o.Leader != "" {
		gauge(clusterLeader, 1, o.Leader)
	}
	down := 0
	for _, s := range o.Shards {
		gauge(clusterShardOwner, 1, s.Name, s.Primary, s.State)
		if s.State != router.ShardUp {
			down++
		}
	}
	gauge(clusterShardsDown, float64(down))
	gauge(clusterLocalShards, float64(st.LocalShards))
	gauge(clusterTableVersion, float64(st.TableVersion))
	gauge(clusterEtcdUp, bit(st.EtcdOK))
	gauge(clusterLeaseUp, bit(st.Owner))
	ch <- prometheus.MustNewConstMetric(clusterRemoteErrors, prometheus.CounterValue, float64(st.RemoteErrors))
}
