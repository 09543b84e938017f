package commands

import (
	"geoshard/router"
	"geoshard/shard"
)

// addMany is addAll in cluster mode: the router looks up and stores the
// members in batches, one message per node each, rather than one lookup on
// every node and one store per member.
func (e *Engine) addMany(c *Client, k shard.Key, member func(j int) []byte, scores []float64, f router.AddFlags, ch bool) {
	members := make([]string, len(scores))
	for j := range members {
		members[j] = string(member(j))
	}
	added, changed, err := e.Router().TryAddMany(k, members, scores, f)
	if err != nil {
		// The shard's node is down or not answering.
		c.W.Error("TRYAGAIN " + err.Error())
		return
	}
	n := added
	if ch {
		n += changed
	}
	c.changed(added + changed) // the save schedule counts elements, as Redis's dirty counter
	c.W.Int(int64(n))
}
