package router

import (
	"cmp"
	"slices"

	"geoshard/shard"
)

// Scores returns the scores of several members of k (GEOPOS, GEOHASH,
// ZMSCORE), ok[i] false for a member that is not there. A narrow owner
// record names only the shard of a member's copy: the members are found
// in their stripes first, then each shard is read once for all of its
// members (shard.ValuesHash), where Score per member would look the key up
// and lock the shard once a member. In cluster mode it is TryScores
// with the error dropped.
func (r *Router) Scores(k shard.Key, members []string) (scores []float64, ok []bool) {
	if r.cl != nil {
		scores, ok, _ = r.scoresCluster(k, members)
		return scores, ok
	}
	scores, ok = make([]float64, len(members)), make([]bool, len(members))
	g := r.key(k, false)
	if g == nil {
		return scores, ok
	}
	cut := r.minStamp(g, now())
	hs := make([]uint64, len(members))
	var asks []scoreAsk // members whose score is in their shard
	for i, m := range members {
		hs[i] = shard.Hash(m)
		st := &g.stripes[stripeOfHash(hs[i])]
		st.mu.Lock()
		if at, found := st.owner.find(m, hs[i]); found {
			if st.owner.src == nil {
				v := st.owner.val(at)
				scores[i], ok[i] = v.score, v.stamp >= cut
			} else {
				asks = append(asks, scoreAsk{st.owner.rec(at).shard, i})
			}
		}
		st.mu.Unlock()
	}
	r.askScores(k, g, members, hs, asks, cut, scores, ok)
	return scores, ok
}

// TryScores is Scores that fails, in cluster mode, when a member was not
// found and some shard could not be read.
func (r *Router) TryScores(k shard.Key, members []string) (scores []float64, ok []bool, err error) {
	if r.cl != nil {
		return r.scoresCluster(k, members)
	}
	scores, ok = r.Scores(k, members)
	return scores, ok, nil
}

// scoreAsk is a member (its index) whose copy is in shard id.
type scoreAsk struct {
	id shard.ID
	i  int
}

// askScores reads the asked members' copies a shard at a time. A copy not
// found where its record named it moved (or went) meanwhile: that member
// is read again through its record.
func (r *Router) askScores(k shard.Key, g *geoKey, members []string, hs []uint64, asks []scoreAsk, cut int64, scores []float64, ok []bool) {
	if len(asks) == 0 {
		return
	}
	slices.SortStableFunc(asks, func(a, b scoreAsk) int { return cmp.Compare(a.id, b.id) })
	v := g.src.v.Load()
	var names []string
	var hashes []uint64
	var missed []int
	for from := 0; from < len(asks); {
		to := from + 1
		for to < len(asks) && asks[to].id == asks[from].id {
			to++
		}
		group := asks[from:to]
		if v == nil || int(group[0].id) >= len(v.shards) {
			// Widened meanwhile (the router joined a cluster).
			for _, a := range group {
				missed = append(missed, a.i)
			}
			from = to
			continue
		}
		names, hashes = names[:0], hashes[:0]
		for _, a := range group {
			names, hashes = append(names, members[a.i]), append(hashes, hs[a.i])
		}
		v.shards[group[0].id].ValuesHash(v.key, names, hashes, func(j int, val shard.Value, found bool) {
			i := group[j].i
			if !found {
				missed = append(missed, i)
				return
			}
			scores[i], ok[i] = val.Score, val.Stamp >= cut
		})
		from = to
	}
	for _, i := range missed {
		scores[i], ok[i] = r.Score(k, members[i])
	}
}
