package commands

import (
	"strconv"
	"strings"

	"geoshard/shard"
)

// infoShards is geoshard's own section: the region map, and per shard and
// per border the counters that tell an operator whether borders sit well.
func infoShards(e *Engine, c *Client, b *infoBuilder) {
	r := e.Router()
	m := r.Regions()
	st := r.Stats()
	b.field("region_map_version", m.Version())
	b.field("hysteresis_margin_m", strconv.FormatFloat(m.Margin(), 'f', -1, 64))
	b.int("shards", int64(m.Len()))
	b.int("position_ttl_ms", r.PositionTTL().Milliseconds())
	b.int("fanout_timeout_ms", r.FanoutTimeout().Milliseconds())
	members := r.ShardMembers()
	for i := range st.Shards {
		s := &st.Shards[i]
		var n int64
		if i < len(members) {
			n = members[i]
		}
		b.field("shard_"+m.Name(shard.ID(i)), "members="+strconv.FormatInt(n, 10)+
			",writes="+strconv.FormatInt(s.Writes.Load(), 10)+
			",handoffs_in="+strconv.FormatInt(s.HandoffsIn.Load(), 10)+
			",handoffs_out="+strconv.FormatInt(s.HandoffsOut.Load(), 10)+
			",searches="+strconv.FormatInt(s.Searches.Load(), 10)+
			",degraded="+strconv.FormatInt(s.Degraded.Load(), 10)+
			",expired="+strconv.FormatInt(s.Expired.Load(), 10))
	}
	for _, bd := range st.Borders() {
		bs := st.Border(bd.A, bd.B)
		b.field("border_"+m.Name(bd.A)+"_"+m.Name(bd.B),
			"handoffs="+strconv.FormatInt(bs.Handoffs.Load(), 10)+
				",flaps_suppressed="+strconv.FormatInt(bs.FlapsSuppressed.Load(), 10)+
				",searches="+strconv.FormatInt(bs.Searches.Load(), 10))
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
}
