package router

// Increments (ZINCRBY, ZADD INCR). A single node reads the score and
// writes the sum with the keyspace held alone. In cluster mode two nodes
// may increment one member at once, each reading the copy and writing its
// sum: the write is conditional on the copy it read still being the
// shard's, decided by the shard's primary alone, and starts again from a
// fresh read when another node's write came first, so that no increment
// is lost (TestClusterZincrbyThroughTwoNodes).

import (
	"fmt"
	"math"

	"geoshard/shard"
)

// increment is the write of an increment: the new score is the copy's
// score plus by, computed again from every copy the write reads, and
// checked against NX, XX, GT and LT in Redis's order.
type increment struct {
	by      float64
	f       AddFlags
	score   float64 // the score written
	nan     bool    // the sum is not a number: nothing written
	refused bool    // NX, XX, GT or LT refused it: nothing written
}

// apply sets *score to the sum over the member's current copy (by alone
// for a member that has none) and reports whether it may be written.
func (inc *increment) apply(score *float64, live bool, cur slot) bool {
	if inc.f.NX && live || inc.f.XX && !live {
		inc.refused = true
		return false
	}
	*score = inc.by
	if live {
		*score += cur.score
	}
	if math.IsNaN(*score) {
		inc.nan = true
		return false
	}
	if live && (inc.f.GT && !(*score > cur.score) || inc.f.LT && !(*score < cur.score)) {
		inc.refused = true
		return false
	}
	inc.score = *score
	return true
}

// read finds the member's newest copy on every node for an increment.
// Unlike a write of a whole score, an increment that found no copy while a
// shard could not be read stops: starting from nothing would lose the
// score (as TryScore).
func (inc *increment) read(r *Router, k shard.Key, member string, cut int64) (slot, bool, error) {
	cur, exists, err := r.findLive(k, member, cut)
	if err != nil {
		r.remoteFailed("get", err)
		if !exists {
			return cur, false, fmt.Errorf("member %q could not be read (%w); not incremented", member, err)
		}
	}
	return cur, exists, nil
}

// TryIncr adds by to member's score (ZINCRBY, ZADD INCR) and returns the
// new score; ok is false when NX, XX, GT or LT refused the write, or the
// sum is not a number (nan). The engine holds the keyspace alone for the
// command, so in a single node the read and the write are one step.
func (r *Router) TryIncr(k shard.Key, member string, by float64, f AddFlags) (score float64, ok, nan bool, err error) {
	inc := &increment{by: by, f: f}
	if r.cl == nil {
		cur, exists := r.Score(k, member)
		if !inc.apply(&score, exists, slot{score: cur}) {
			return 0, false, inc.nan, nil
		}
		r.Add(k, member, score, AddFlags{})
		return score, true, false, nil
	}
	if _, _, err := r.addCluster(k, member, 0, AddFlags{}, inc); err != nil || inc.nan || inc.refused {
		return 0, false, inc.nan, err
	}
	return inc.score, true, false, nil
}
