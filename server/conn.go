package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"geoshard/commands"
	"geoshard/resp"
)

// flushAt is how many reply bytes a pipeline may queue before they are
// written even though more commands are waiting.
const flushAt = 64 << 10

// handshakeTimeout bounds a TLS handshake, so that a client that connects
// and says nothing does not hold a connection slot for ever.
const handshakeTimeout = 10 * time.Second

// Redis's replies to connections it refuses before reading a command.
const (
	errMaxClients = "ERR max number of clients reached"
	errDenied     = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."
)

// errOutputLimit ends a client whose replies pile up unread.
var errOutputLimit = errors.New("client output buffer limit reached")

// serveConn runs one client: read a command, run it, and write the queued
// replies whenever the client has no more commands in flight.
func (s *Server) serveConn(nc net.Conn) {
	defer s.untrack(nc)
	defer nc.Close()
	remote := nc.RemoteAddr().String()
	if tc, ok := nc.(*tls.Conn); ok {
		ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			s.log.Warn("TLS handshake failed", "client", remote, "err", err)
			return
		}
	}
	c := s.engine.NewClient(remote, nc.LocalAddr().String())
	defer s.engine.Close(c)
	if refusal := s.refuse(nc); refusal != "" {
		c.W.Error(refusal)
		nc.SetWriteDeadline(time.Now().Add(time.Second))
		nc.Write(c.W.Buf)
		return
	}
	rd := resp.NewReader(nc)
	cs := newConnState(nc, &s.replies)
	defer func() {
		if rd.BigBytes >= reclaimAfter {
			s.reclaimSoon()
		}
	}()
	for {
		rd.MaxBulkLen = s.maxBulkLen.Load()
		rd.Unauthenticated = s.engine.AuthRequired(c)
		if rd.Buffered() == 0 {
			if t := time.Duration(s.timeout.Load()); t > 0 {
				cs.readDeadline(time.Now().Add(t))
			} else {
				cs.readDeadline(time.Time{}) // timeout set to 0 meanwhile
			}
			// shutdown sets stopping before it wakes readers: seen
			// here, any later deadline of ours must not undo its own.
			if s.stopping.Load() {
				nc.SetReadDeadline(time.Now())
			}
		}
		args, err := rd.ReadCommand()
		if err != nil {
			var perr resp.ProtocolError
			if errors.As(err, &perr) {
				c.W.Error(perr.Error())
				s.log.Warn("protocol error", "client", remote, "err", perr.Error())
			}
			if len(c.W.Buf) > 0 && !errors.Is(err, io.EOF) {
				s.write(cs, c, false)
			}
			if !errors.Is(err, io.EOF) && perr == "" && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, net.ErrClosed) {
				s.log.Debug("read failed", "client", remote, "err", err)
			}
			if s.stopping.Load() {
				lingerClose(nc)
			}
			return
		}
		c.W.Buf = cs.replies.prepare(c.W.Buf)
		s.engine.Exec(c, args)
		if c.Quit() || len(c.W.Buf) >= flushAt || rd.Buffered() == 0 {
			if err := s.write(cs, c, rd.Buffered() > 0); err != nil {
				switch {
				case errors.Is(err, errOutputLimit):
					s.log.Warn("closing client over the output buffer hard limit", "client", remote, "err", err)
				case errors.Is(err, os.ErrDeadlineExceeded):
					s.log.Warn("closing client that does not read its replies", "client", remote, "err", err)
				}
				return
			}
			if c.Quit() {
				return
			}
		}
	}
}

// refuse returns the error a new connection gets instead of service, or
// "" to serve it: maxclients first, then protected mode, as Redis checks.
func (s *Server) refuse(nc net.Conn) string {
	if n := s.engine.Clients(); int64(n) > s.maxClients.Load() {
		s.engine.CountRejected()
		s.log.Warn("refusing client: max number of clients reached", "client", nc.RemoteAddr().String())
		return errMaxClients
	}
	if s.protected.Load() && s.cfg.RequirePass() == "" && !isLoopback(nc.RemoteAddr()) {
		s.log.Warn("refusing client: protected mode", "client", nc.RemoteAddr().String())
		return errDenied
	}
	return ""
}

// isLoopback is Redis 7.0's test for protected mode: the peer must be
// exactly 127.0.0.1 or ::1 (other 127/8 addresses count as remote).
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return true // not an IP connection: local by construction
	}
	return ta.IP.Equal(net.IPv4(127, 0, 0, 1)) || ta.IP.Equal(net.IPv6loopback)
}

// write sends the client's queued replies, enforcing the output limit: a
// reply past the hard limit, or a write stalled past the soft limit for
// its time (or past the idle timeout), disconnects the client, so a client
// that stops reading holds at most its last replies and one goroutine.
//
// pipelined says the client has sent more commands. Redis would run them
// and let their replies pile up until a limit fires; geoshard stops
// reading instead (a client costs one flush of replies, not up to the
// hard limit), so a write stalled for the soft limit's time while more
// commands wait counts as passing the soft limit: without that, a client
// that pipelines and never reads would hold its connection for ever.
func (s *Server) write(cs *connState, c *commands.Client, pipelined bool) error {
	pending := int64(len(c.W.Buf))
	lim := s.outputLimit.Load()
	if lim.Hard > 0 && pending > lim.Hard {
		c.W.Buf = cs.replies.written(c.W.Buf, 0)
		return fmt.Errorf("%w: %d bytes of replies over the hard limit %d", errOutputLimit, pending, lim.Hard)
	}
	var wait time.Duration
	if lim.Soft > 0 && lim.SoftTime > 0 && (pending > lim.Soft || pipelined) {
		wait = lim.SoftTime
	}
	if t := time.Duration(s.timeout.Load()); t > 0 && (wait == 0 || t < wait) {
		wait = t
	}
	if s.stopping.Load() && (wait == 0 || shutdownGrace < wait) {
		wait = shutdownGrace
	}
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	s.writeDeadline(cs, deadline)
	err := s.writeStalled(cs, c.W.Buf, deadline, lim)
	// A huge reply's buffer does not stay pinned to the client, nor
	// become garbage: it goes back to the server's pool (replybuf.go).
	c.W.Buf = cs.replies.written(c.W.Buf, int(pending))
	return err
}

// stallCheck is how long a write may block before the server looks
// whether the client is sending more commands meanwhile (see write).
const stallCheck = time.Second

// writeStalled writes buf by deadline (zero: none). With a soft limit,
// the write first gets stallCheck; if the client has not taken the
// replies by then and its next commands wait in the kernel (the
// pipelining rule of write), the soft limit's time bounds the rest. The
// receive queue is only looked at for a stalled write, never on the fast
// path.
func (s *Server) writeStalled(cs *connState, buf []byte, deadline time.Time, lim *OutputLimit) error {
	nc := cs.nc
	// The fast path: replies that fit the socket's send buffer leave in
	// one write that cannot block, so no stall check (a deadline, with
	// its timer, per reply) is armed for them.
	n, err := cs.tryWrite(buf)
	if err != nil || n == len(buf) {
		return err
	}
	buf = buf[n:]
	if lim.Soft <= 0 || lim.SoftTime <= 0 || (!deadline.IsZero() && time.Until(deadline) <= stallCheck) {
		_, err := nc.Write(buf)
		return err
	}
	start := time.Now()
	s.writeDeadline(cs, start.Add(stallCheck))
	n, err = nc.Write(buf)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if inputPending(nc) {
		if soft := start.Add(lim.SoftTime); deadline.IsZero() || soft.Before(deadline) {
			deadline = soft
		}
	}
	s.writeDeadline(cs, deadline)
	_, err = nc.Write(buf[n:])
	return err
}

// writeDeadline sets the connection's write deadline (zero: none) within
// shutdown's bound. As with reads, shutdown sets stopping and then bounds
// every write: a deadline set here in between must not lift that bound,
// whether it is none or the soft limit's minute for a write that was
// already stalled when shutdown began.
func (s *Server) writeDeadline(cs *connState, t time.Time) {
	cs.writeDeadline(t)
	if !s.stopping.Load() {
		return
	}
	if bound := time.Now().Add(shutdownGrace); t.IsZero() || bound.Before(t) {
		cs.writeDeadline(bound)
	}
}

// lingerClose ends a TCP connection the way a server going down should:
// it sends FIN after the last reply, then reads and drops what the client
// still sends for a moment, because closing with unread input makes the
// kernel send RST, which can destroy replies the client has not read yet.
func lingerClose(nc net.Conn) {
	tc, ok := nc.(*net.TCPConn)
	if !ok || tc.CloseWrite() != nil {
		return
	}
	tc.SetReadDeadline(time.Now().Add(shutdownGrace / 5))
	io.Copy(io.Discard, io.LimitReader(tc, 4<<20))
}
