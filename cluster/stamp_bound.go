package cluster

import (
	"strconv"
	"time"

	"geoshard/shard"
)

// maxStampAhead bounds how far ahead of this node's clock a peer's copy
// may be stamped. Newest stamp wins, so a copy stamped far ahead (a
// peer's broken clock or a bug) could never be replaced: at the top,
// math.MaxInt64, the next stamp wraps and every later write of the
// member was dropped while the client heard it stored. A day is far
// beyond any skew between working clocks.
const maxStampAhead = 24 * time.Hour

// checkStamps fails p when a copy of es is stamped too far ahead.
func (p *parser) checkStamps(es []shard.Entry) {
	limit := time.Now().Add(maxStampAhead).UnixNano()
	for _, e := range es {
		if e.Stamp > limit {
			p.fail("stamp " + strconv.FormatInt(e.Stamp, 10) + " is more than " + maxStampAhead.String() + " ahead")
			return
		}
	}
}
