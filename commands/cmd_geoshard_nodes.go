package commands

import (
	"context"
	"strconv"
	"strings"
	"time"

	"geoshard/router"
)

func init() {
	register(&command{name: "geoshard|nodes", arity: 2, flags: []string{"loading", "stale"}, handler: geoshardNodes})
}

// nodesTimeout bounds how long GEOSHARD NODES waits for other nodes'
// shard sizes; a node that does not answer leaves its sizes at -1.
const nodesTimeout = time.Second

// geoshardNodes: GEOSHARD NODES. The cluster as this node sees it now,
// one line per item so that redis-cli shows it readably and scripts split
// it on spaces:
//
//	cluster self=<id> leader=<id> table_version=<n> members=<n> shards=<n> shards_down=<n>
//	member id=<id> addr=<host:port> bus=<host:port> state=up|unreachable|lease_lost shards=<n> leader=yes|no self=yes|no [problem=<text>]
//	shard name=<name> primary=<id>|- replica=<id>|- state=up|down|unreachable|unassigned members=<n>|-1
//
// A shard is down while its owner's lease is gone and unreachable while
// its owner is registered but fails health checks: both are missing from
// searches now.
func geoshardNodes(e *Engine, c *Client, args [][]byte) {
	ctx, cancel := context.WithTimeout(context.Background(), nodesTimeout)
	defer cancel()
	o, ok := e.Router().ClusterOverview(ctx, true)
	if !ok {
		c.W.Error("ERR GEOSHARD NODES needs cluster mode (cluster-etcd): this node serves every shard itself")
		return
	}
	down := 0
	for _, s := range o.Shards {
		if s.State != router.ShardUp {
			down++
		}
	}
	lines := []string{"cluster self=" + o.Self + " leader=" + dash(o.Leader) +
		" table_version=" + strconv.FormatInt(o.TableVersion, 10) + " members=" + strconv.Itoa(len(o.Members)) +
		" shards=" + strconv.Itoa(len(o.Shards)) + " shards_down=" + strconv.Itoa(down)}
	for _, m := range o.Members {
		state := "up"
		switch {
		case m.Self && !m.Up:
			state = "lease_lost"
		case !m.Up:
			state = "unreachable"
		}
		l := "member id=" + m.ID + " addr=" + dash(m.Addr) + " bus=" + dash(m.Bus) + " state=" + state +
			" shards=" + strconv.Itoa(m.Shards) + " leader=" + yesNoInfo(m.ID == o.Leader) + " self=" + yesNoInfo(m.Self)
		if m.Problem != "" {
			l += " problem=" + strings.ReplaceAll(m.Problem, "\n", " ")
		}
		lines = append(lines, l)
	}
	for _, s := range o.Shards {
		lines = append(lines, "shard name="+s.Name+" primary="+dash(s.Primary)+" replica="+dash(s.Replica)+
			" state="+s.State+" members="+strconv.FormatInt(s.Members, 10))
	}
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.BulkString(l)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
