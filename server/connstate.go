package server

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// connState is what the server keeps per connection besides the
// engine's client: the deadlines it set, its reply buffers, and the raw
// socket for writes that must not block.
type connState struct {
	nc      net.Conn
	replies replies
	// raw is the TCP socket (nil over TLS, whose writes go through the
	// record layer); writeOnce is tryWrite's callback, made once so that
	// a reply allocates nothing, and wbuf, wn, werr its input and output.
	raw       syscall.RawConn
	writeOnce func(fd uintptr) bool
	wbuf      []byte
	wn        int
	werr      error
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

func newConnState(nc net.Conn, pool *replyPool) *connState {
	cs := &connState{nc: nc, replies: newReplies(pool)}
	if tc, ok := nc.(*net.TCPConn); ok {
		if raw, err := tc.SyscallConn(); err == nil {
			cs.raw = raw
			cs.writeOnce = cs.writeNoWait
		}
	}
	return cs
}

// tryWrite writes what of buf the socket takes without waiting and
// returns how much that was; the caller writes the rest the blocking way,
// under its deadlines.
func (cs *connState) tryWrite(buf []byte) (int, error) {
	if cs.raw == nil || len(buf) == 0 {
		return 0, nil
	}
	cs.wbuf, cs.wn, cs.werr = buf, 0, nil
	err := cs.raw.Write(cs.writeOnce) // closed, or past a deadline: as nc.Write
	n := cs.wn
	if err == nil && cs.werr != nil {
		err = os.NewSyscallError("write", cs.werr)
	}
	cs.wbuf, cs.werr = nil, nil
	if err != nil {
		return n, &net.OpError{Op: "write", Net: "tcp", Source: cs.nc.LocalAddr(), Addr: cs.nc.RemoteAddr(), Err: err}
	}
	return n, nil
}

// writeNoWait is tryWrite's callback: it writes until the socket would
// block and never asks the poller to wait (it always returns true).
func (cs *connState) writeNoWait(fd uintptr) bool {
	for cs.wn < len(cs.wbuf) {
		n, err := syscall.Write(int(fd), cs.wbuf[cs.wn:])
		if n > 0 {
			cs.wn += n
		}
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return true
		case err != nil:
			cs.werr = err
			return true
		case n == 0:
			return true
		}
	}
	return true
}
