package router

import (
	"slices"

	"geoshard/shard"
)

// currentIn keeps, of copies es read from shard id (overwriting es), only
// those the router placed last: a member's copy in the shard its record
// names. A shard holds one copy of a member, so that is the current one,
// or was when it was read: a copy that an update in place replaced since
// is the member as the range read it. (Checking a wide record's stamp too
// dropped such a copy, and the range missed the member: 3 of 737 ranges
// under -race in TestSearchDuringHandoffs.) Each check locks the member's
// stripe, so it sees a move either before its handoff or after the record
// names the new shard, never a member with two current copies.
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
		return !ok || st.owner.rec(at).shard != id
	})
}
