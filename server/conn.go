package server

import (
	"errors"
	"io"
	"net"
	"time"

	"geoshard/resp"
)

// flushAt is how many reply bytes a pipeline may queue before they are
// written even though more commands are waiting.
const flushAt = 64 << 10

// serveConn runs one client: read a command, run it, and write the queued
// replies whenever the client has no more commands in flight.
func (s *Server) serveConn(nc net.Conn) {
	defer s.untrack(nc)
	defer nc.Close()
	c := s.engine.NewClient(nc.RemoteAddr().String(), nc.LocalAddr().String())
	defer s.engine.Close(c)
	if n := s.engine.Clients(); int64(n) > s.maxClients.Load() {
		c.W.Error("ERR max number of clients reached")
		nc.Write(c.W.Buf)
		return
	}
	rd := resp.NewReader(nc)
	for {
		rd.MaxBulkLen = s.maxBulkLen.Load()
		if rd.Buffered() == 0 {
			if t := time.Duration(s.timeout.Load()); t > 0 {
				nc.SetReadDeadline(time.Now().Add(t))
			}
		}
		args, err := rd.ReadCommand()
		if err != nil {
			var perr resp.ProtocolError
			if errors.As(err, &perr) {
				c.W.Error(perr.Error())
				nc.Write(c.W.Buf)
				s.log.Debug("protocol error", "client", nc.RemoteAddr().String(), "err", perr.Error())
			} else if len(c.W.Buf) > 0 && !errors.Is(err, io.EOF) {
				nc.Write(c.W.Buf)
			}
			return
		}
		s.engine.Exec(c, args)
		if c.Quit() || len(c.W.Buf) >= flushAt || rd.Buffered() == 0 {
			if _, err := nc.Write(c.W.Buf); err != nil {
				return
			}
			c.W.Buf = c.W.Buf[:0]
			if c.Quit() {
				return
			}
		}
	}
}
