package router

// A count that gathers the members (rounds kept naming new ones) reads
// every node's copies and keeps each member's newest. A handoff that falls
// between the reads of its new shard and of its old one still hides the
// member from both, and a member's old copy in range can be kept while
// its newest one, out of range, was read too early. So after the gather
// every node names the members that changed since it began, and those
// are asked until each is settled. When more changed than a node can
// name, the gathered count is the answer: a load's new members are then
// most of them, and they cross no shard.

import (
	"errors"
	"math"
	"time"

	"geoshard/shard"
)

// gatherChecks bounds the rounds that settle the members named after a
// gather, the later ones a clock slack apart; past them the count fails
// rather than guess.
const gatherChecks = 6

// errUnsettled is a gathered count whose named members kept moving.
var errUnsettled = errors.New("count not settled: members kept moving between shards while counted")

// gatherCount counts k's members within [min, max] by their copies. A
// member not named since the gather began kept its copy where the gather
// read it. A named one counts by its newest copy in a later round: when
// found, or when found nowhere and not named in that round (it had no
// copy then); a member found nowhere and named again is asked again.
func (r *Router) gatherCount(k shard.Key, min, max Bound, cut int64) (int, error) {
	began := now() - clockSlack
	es, _, err := r.scanCluster(k, min, max, false, cut, math.MaxInt, nil)
	if err != nil {
		return len(es), err
	}
	gathered := make(map[string]struct{}, len(es))
	for _, e := range es {
		gathered[e.Member] = struct{}{}
	}
	n := len(es)
	var open []string // named, not settled
	since := began
	for check := range gatherChecks {
		if check > 1 {
			// A member that changed within the clock slack of the last
			// round is named again however it stands: let it pass.
			time.Sleep(time.Duration(clockSlack))
		}
		c, err := r.checkRound(k, min, max, cut, since, open)
		if err != nil {
			return n, r.readFailed("count", err)
		}
		if !c.Whole {
			// Too many changed to name (a cold load inserts thousands
			// within the clock slack): the gathered count, as before.
			return len(es), nil
		}
		if check == 0 {
			// Every member that changed since the gather began: take it
			// out of the gathered count and settle it.
			for _, m := range c.Names {
				if _, ok := gathered[m]; ok {
					n--
				}
				open = append(open, m)
			}
		} else {
			n, open = settle(n, open, c)
		}
		if len(open) == 0 {
			return n, nil
		}
		since = now() - clockSlack
	}
	return n, errUnsettled // no shard failed: the client may ask again
}

func (r *Router) checkRound(k shard.Key, min, max Bound, cut, since int64, asked []string) (CountReply, error) {
	ctx, cancel := r.callCtx()
	defer cancel()
	return r.countRound(ctx, k, min, max, cut, since, asked)
}

// settle adds to n the members of open that c settles (found, or found
// nowhere and not named during c) and returns those left open.
func settle(n int, open []string, c CountReply) (int, []string) {
	named := c.named()
	left := open[:0]
	for i, m := range open {
		nw := c.Asked[i]
		_, again := named[m]
		switch {
		case nw.Found:
			if nw.In {
				n++
			}
		case again:
			left = append(left, m)
		}
	}
	return n, left
}
