package server

import (
	"net"
	"time"
)

// connState is what the server keeps per connection besides the
// engine's client: the deadlines it set and its reply buffers.
type connState struct {
	nc      net.Conn
	replies replies
	// rdSet, wrSet say a read or write deadline may be in force. Without
	// a timeout or output limit none is, and clearing it again before
	// every command and reply would cost a runtime call (a lock and the
	// timer's bookkeeping) per request for nothing.
	rdSet, wrSet bool
}

// readDeadline sets the read deadline; a zero t clears it, and costs
// nothing when none was set by this connection. Shutdown's own deadline
// (server.go) is never cleared here: it comes with stopping, which every
// caller checks after this.
func (cs *connState) readDeadline(t time.Time) {
	if t.IsZero() && !cs.rdSet {
		return
	}
	cs.nc.SetReadDeadline(t)
	cs.rdSet = !t.IsZero()
}

// writeDeadline is readDeadline for writes.
func (cs *connState) writeDeadline(t time.Time) {
	if t.IsZero() && !cs.wrSet {
		return
	}
	cs.nc.SetWriteDeadline(t)
	cs.wrSet = !t.IsZero()
}
