package commands

// INFO's # Cluster section keeps Redis's cluster_enabled:0 (clients must
// not switch to Redis Cluster mode) and, in geoshard's cluster mode, adds
// what an operator needs: membership, the routing table in force, and
// whether etcd is reachable or the node serves with the last map it had.
func init() {
	for i := range infoSections {
		if infoSections[i].name != "cluster" {
			continue
		}
		base := infoSections[i].gen
		infoSections[i].gen = func(e *Engine, c *Client, b *infoBuilder) {
			base(e, c, b)
			infoGeoshardCluster(e, b)
		}
	}
}

func infoGeoshardCluster(e *Engine, b *infoBuilder) {
	st, ok := e.Router().ClusterStatus()
	if !ok {
		return
	}
	b.field("geoshard_cluster", "1")
	b.field("cluster_node_id", st.NodeID)
	b.field("cluster_advertise", st.Advertise)
	b.field("cluster_leader", yesNoInfo(st.Leader))
	b.field("cluster_etcd", map[bool]string{true: "ok", false: "unreachable"}[st.EtcdOK])
	b.field("cluster_lease", map[bool]string{true: "ok", false: "lost"}[st.Owner])
	map_ := "current"
	if !st.EtcdOK {
		map_ = "last_known"
	}
	b.field("cluster_map", map_)
	b.int("cluster_members", int64(st.Members))
	b.int("cluster_table_version", st.TableVersion)
	b.int("cluster_table_age_ms", st.TableAge.Milliseconds())
	b.int("cluster_local_shards", int64(st.LocalShards))
	b.int("cluster_down_shards", int64(st.DownShards))
	b.int("cluster_remote_errors", st.RemoteErrors)
}

func yesNoInfo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
