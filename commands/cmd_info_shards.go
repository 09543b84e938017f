package commands

import (
	"strconv"
	"strings"

	"geoshard/router"
)

func borderCounts(bs *router.BorderStats) string {
	return "handoffs=" + strconv.FormatInt(bs.Handoffs.Load(), 10) +
		",flaps_suppressed=" + strconv.FormatInt(bs.FlapsSuppressed.Load(), 10) +
		",searches=" + strconv.FormatInt(bs.Searches.Load(), 10)
}

// infoShards is geoshard's own section: the region map, and per shard and
// per border the counters that tell an operator whether borders sit well.
func infoShards(e *Engine, c *Client, b *infoBuilder) {
	r := e.Router()
	m := r.Regions()
	st := r.Stats()
	b.field("region_map_version", m.Version())
	b.field("hysteresis_margin_m", strconv.FormatFloat(m.Margin(), 'f', -1, 64))
	_, own := m.Own()
	b.int("shards", int64(own))
	if running, moved, total, ok := r.Moving(); ok {
		// The last reload's move of members to the new map's shards.
		state := "done"
		if running {
			state = "moving"
		}
		b.field("region_map_move", state)
		b.int("region_map_move_moved", moved)
		b.int("region_map_move_total", total)
	}
	b.int("position_ttl_ms", r.PositionTTL().Milliseconds())
	b.int("fanout_timeout_ms", r.FanoutTimeout().Milliseconds())
	members := r.ShardMembers()
	// A map of thousands of areas would make this section megabytes:
	// the busiest shards and borders are listed, and how many were not.
	ids, shardsLeft := st.TopShards(members, router.InfoLimit)
	for _, id := range ids {
		s := &st.Shards[id]
		var n int64
		if int(id) < len(members) {
			n = members[id]
		}
		b.field("shard_"+m.Name(id), "members="+strconv.FormatInt(n, 10)+
			",writes="+strconv.FormatInt(s.Writes.Load(), 10)+
			",handoffs_in="+strconv.FormatInt(s.HandoffsIn.Load(), 10)+
			",handoffs_out="+strconv.FormatInt(s.HandoffsOut.Load(), 10)+
			",searches="+strconv.FormatInt(s.Searches.Load(), 10)+
			",degraded="+strconv.FormatInt(s.Degraded.Load(), 10)+
			",expired="+strconv.FormatInt(s.Expired.Load(), 10))
	}
	if shardsLeft > 0 {
		b.int("shards_not_listed", int64(shardsLeft))
	}
	borders, bordersLeft := st.TopBorders(router.InfoLimit)
	for _, bd := range borders {
		b.field("border_"+m.Name(bd.A)+"_"+m.Name(bd.B), borderCounts(st.Border(bd.A, bd.B)))
	}
	if bordersLeft > 0 {
		b.int("borders_not_listed", int64(bordersLeft))
	}
	if st.Elsewhere.Handoffs.Load()+st.Elsewhere.FlapsSuppressed.Load() > 0 {
		// Members that jumped between shards that are not neighbours.
		b.field("border_elsewhere", borderCounts(&st.Elsewhere))
	}
	var fan strings.Builder
	for n := 1; n < len(st.FanOut); n++ {
		if n > 1 {
			fan.WriteByte(',')
		}
		fan.WriteString(strconv.Itoa(n))
		if n == len(st.FanOut)-1 {
			fan.WriteByte('+')
		}
		fan.WriteString("=" + strconv.FormatInt(st.FanOut[n].Load(), 10))
	}
	b.field("searches_by_shards", fan.String())
	b.int("degraded_searches", st.Degraded.Load())
	b.int("searches_read_again", st.SearchRetries.Load())
}
