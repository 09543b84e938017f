package router

import "geoshard/shard"

// TryExists reports whether k has a member, as TryCard(k) > 0 does, for
// the commands that only ask whether a geo key has a name (SET, GET,
// TYPE, EXISTS...). In cluster mode each node answers with at most one
// copy a shard where TryCard, when shards have replicas, gathers every
// member of the key from every node to dedupe them (a GET of a 20,000
// member key's name moved 20,000 members to answer WRONGTYPE). A copy
// found is the answer even when some node did not reply; finding none
// while some node did not reply is an error (it may hold the key).
func (r *Router) TryExists(k shard.Key) (bool, error) {
	if r.cl == nil {
		return r.Card(k) > 0, nil
	}
	cut := r.minStamp(r.key(k, false), now())
	w := r.watchMoves(len(r.shards)) // as a range (ranges.go)
	es, _, err := r.scanCluster(k, everything[0], everything[1], false, cut, 1, w)
	if len(r.findDepartedIn(es, w, k, everything[0], everything[1], cut)) > 0 {
		return true, nil
	}
	return false, err
}
