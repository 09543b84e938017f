package commands

import "strconv"

// INFO's # Cluster section keeps Redis's cluster_enabled:0: geoshard's
// cluster is not a Redis Cluster (any node answers any key; there are no
// slots), so cluster-aware clients are told, as by a standalone Redis,
// that cluster support is disabled (cmd_internal.go). In geoshard's
// cluster mode it adds what an operator needs: membership, the leader,
// the routing table in force, shards down now, and whether etcd is
// reachable or the node serves with the last map it had.
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
	b.field("cluster_leader", st.LeaderID)
	b.field("cluster_is_leader", yesNoInfo(st.Leader))
	b.field("cluster_bus_auth", map[bool]string{true: "password", false: "none"}[st.BusAuth])
	b.field("cluster_bus_tls", yesNoInfo(st.BusTLS))
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
	b.field("cluster_counts", countRounds(e.Router().CountRounds()))
}

// countRounds formats how the node's cluster counts went: in one round
// (one small message a node), two, up to five, or by gathering every
// member (router/remote_count.go), as Redis formats a keyspace line.
func countRounds(n []int64) string {
	names := []string{"one_round", "two_rounds", "three_rounds", "four_rounds", "five_rounds"}
	var out []byte
	for i, v := range n {
		name := "gathered"
		if i < len(n)-1 {
			name = names[min(i, len(names)-1)]
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, name...)
		out = append(out, '=')
		out = strconv.AppendInt(out, v, 10)
	}
	return string(out)
}

func yesNoInfo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
