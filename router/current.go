package router

import (
	"slices"

	"geoshard/shard"
)

// currentIn keeps, of copies es read from shard id (overwriting es), only
// those the router placed last: a member's copy in the shard its record
// names. A wide record holds the member's stamp, and the copy is current
// when it has that stamp. A narrow record holds only the shard, and the
// copy in that shard is the member's current one: reading the stamp there
// again, as the record's slot does, would cost a second lookup in a shard
// of a million members for every copy a range returns
// (BenchmarkBigKeyReads). Each check locks the member's stripe, so it
// sees a move either before its handoff or after the record names the new
// shard, never a member with two current copies.
func (r *Router) currentIn(g *geoKey, id shard.ID, es []shard.Entry) []shard.Entry {
	if g == nil {
		return es[:0]
	}
	return slices.DeleteFunc(es, func(e shard.Entry) bool {
		h := shard.Hash(e.Member)
		st := &g.stripes[stripeOfHash(h)]
		st.mu.Lock()
		defer st.mu.Unlock()
		at, ok := st.owner.find(e.Member, h)
		switch {
		case !ok:
			return true
		case st.owner.src != nil:
			return st.owner.rec(at).shard != id
		default:
			return st.owner.val(at).stamp != e.Stamp || st.owner.rec(at).shard != id
		}
	})
}
