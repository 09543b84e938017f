package router

// Whole-key reads in cluster mode: every node is asked, and each member
// counted once, at its newest copy.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"geoshard/shard"
)

// unreadShards marks a remote call's error with the shards it was for, so
// the client hears which could not be read.
type unreadShards struct {
	ids []shard.ID
	err error
}

func (e *unreadShards) Error() string { return e.err.Error() }
func (e *unreadShards) Unwrap() error { return e.err }

// readFailed counts and logs a whole-key read that missed some shards and
// returns the error the client gets instead of a partial answer: a count,
// range or lookup over the shards that did answer would be silently wrong.
func (r *Router) readFailed(op string, err error) error {
	return r.shardsFailed(op, "read", err)
}

// shardsFailed counts and logs a whole-key call that missed some shards
// and names them in the error for the client.
func (r *Router) shardsFailed(op, verb string, err error) error {
	r.remoteFailed(op, err)
	var ids []shard.ID
	var u *unreadShards
	if errors.As(err, &u) {
		ids = u.ids
	} else if errors.Is(err, errShardDown) {
		all := make([]shard.ID, len(r.shards))
		for i := range all {
			all[i] = shard.ID(i)
		}
		_, _, ids = byNode(r.cl.View(), all)
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = r.regions.Name(id)
	}
	if len(names) == 0 {
		names = []string{"?"}
	}
	return fmt.Errorf("shard %s could not be %s (%w)", strings.Join(names, ","), verb, err)
}

// nodeUnread wraps the error of a call made to a whole node with the
// shards that node serves.
func (r *Router) nodeUnread(p Peer, err error) error {
	if err == nil {
		return nil
	}
	v := r.cl.View()
	var ids []shard.ID
	for i := range r.shards {
		if q := v.Peer(shard.ID(i)); q != nil && q.ID() == p.ID() {
			ids = append(ids, shard.ID(i))
		}
	}
	return unread(ids, err)
}

// unread wraps a remote call's error with the shards it was for.
func unread(ids []shard.ID, err error) error {
	if err == nil {
		return nil
	}
	return &unreadShards{ids: ids, err: err}
}

// scanCluster gathers up to want copies per shard within [min, max] from
// every node; truncated says some shard had more. When some shard could
// not be read it returns what the others hold with the error: Try* calls
// answer the error, the older calls keep their partial answers. w, when
// set, hears which members handoffs took from the shards since the range
// began (departures.go).
func (r *Router) scanCluster(k shard.Key, min, max Bound, rev bool, cut int64, want int, w *moveWatch) ([]shard.Entry, bool, error) {
	ctx, cancel := r.callCtx()
	defer cancel()
	var (
		mu        sync.Mutex
		all       []shard.Entry
		truncated bool
	)
	err := r.onNodes(ctx, nil, func(ids []shard.ID) {
		es, tr := r.scanLocal(ids, k, min, max, rev, cut, want)
		w.local(r, ids, k, cut, rangeTakes(min, max))
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
	}, func(ctx context.Context, p Peer, ids []shard.ID) error {
		es, tr, departed, err := p.Scan(ctx, ids, k, min, max, rev, cut, want, w.from())
		w.add(departed)
		mu.Lock()
		all, truncated = append(all, es...), truncated || tr
		mu.Unlock()
		return unread(ids, err)
	})
	if err != nil {
		err = r.readFailed("range", err)
	}
	return newestEntries(all), truncated, err
}

// newestEntries keeps, of each member, its newest copy.
func newestEntries(es []shard.Entry) []shard.Entry {
	newest := make(map[string]int, len(es))
	out := es[:0]
	for _, e := range es {
		if i, ok := newest[e.Member]; ok {
			if e.Stamp > out[i].Stamp {
				out[i] = e
			}
			continue
		}
		newest[e.Member] = len(out)
		out = append(out, e)
	}
	return out
}

// scanLocal is one node's part of a range: up to want copies per shard.
func (r *Router) scanLocal(ids []shard.ID, k shard.Key, min, max Bound, rev bool, cut int64, want int) ([]shard.Entry, bool) {
	var all []shard.Entry
	truncated := false
	for _, id := range ids {
		s := r.shards[id]
		n := 0
		visit := func(e shard.Entry) bool {
			if n == want {
				truncated = true
				return false
			}
			if rev {
				if !min.below(e.Score) {
					return false
				}
				if !max.above(e.Score) {
					return true
				}
			} else {
				if !max.above(e.Score) {
					return false
				}
				if !min.below(e.Score) {
					return true
				}
			}
			all = append(all, e)
			n++
			return true
		}
		if rev {
			s.Descend(k, max.Score, cut, visit)
		} else {
			s.Ascend(k, min.Score, cut, visit)
		}
	}
	return all, truncated
}

var everything = [2]Bound{{Score: math.Inf(-1)}, {Score: math.Inf(1)}}

// scoresCluster reads members' newest scores over every node, one look-up
// per node for all of them (findMany), where one per member made GEOPOS
// of 100 drivers through a node 100 rounds of calls to every node. A copy
// found is the answer even when some node did not reply: a handoff
// deletes the old copy once the new one is stored. Members found nowhere
// are asked again, as findLive asks: GEOPOS of 8 drivers crossing borders
// through two other nodes answered nil for one of them 1-3 times in
// 440-464 (TestClusterSearchDuringHandoffs). Not finding one while some
// node did not reply is an error (scores and ok are whole with it).
func (r *Router) scoresCluster(k shard.Key, members []string) (scores []float64, ok []bool, err error) {
	scores, ok = make([]float64, len(members)), make([]bool, len(members))
	cut := r.minStamp(r.key(k, false), now())
	ask := make([]int, len(members)) // members not found yet
	for i := range ask {
		ask[i] = i
	}
	names := slices.Clone(members)
	for try := 1; len(ask) > 0; try++ {
		var best []Copy
		var found []bool
		best, found, err = r.findMany(k, names, cut, nil, nil)
		rest := ask[:0]
		names = names[:0]
		for j, i := range ask {
			if found[j] {
				scores[i], ok[i] = best[j].Score, true
				r.observe(best[j].Stamp)
			} else {
				names, rest = append(names, members[i]), append(rest, i)
			}
		}
		ask = rest
		if err != nil || try == absentReads {
			break
		}
	}
	switch {
	case err != nil && len(ask) > 0:
		return scores, ok, r.readFailed("get", err)
	case err != nil:
		r.remoteFailed("get", err)
	}
	return scores, ok, nil
}

// cardCluster counts a key's members over every node, each once: one
// count per node (remote_count.go), not every member.
func (r *Router) cardCluster(k shard.Key) (int, error) {
	return r.countCluster(k, everything[0], everything[1])
}

// scoreCluster is scoresCluster for one member.
func (r *Router) scoreCluster(k shard.Key, member string) (float64, bool, error) {
	scores, ok, err := r.scoresCluster(k, []string{member})
	return scores[0], ok[0], err
}
