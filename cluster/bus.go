package cluster

import (
	"bufio"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"geoshard/resp"
)

// bus serves the node-to-node commands on their own listener, apart from
// the client port. They must not go through the command engine: a
// command there holds the engine's lock while it calls other nodes, and a
// node whose engine is waiting to take that lock alone (key expiry does,
// ten times a second) would not answer the call that the first node
// waits for, and the other way round: a deadlock between nodes.
//
// Every command carries the cluster password as its third word, and the
// bus checks it before anything else: a caller without it learns only
// that it is wrong (no table version, no command names), and a wrong
// password closes the connection, so guessing costs a new one each time.
type bus struct {
	serve func(args [][]byte, w Replier) // the node's ServeInternal
	pass  []byte
	write time.Duration // bound on writing one reply
	ln    net.Listener
	log   *slog.Logger

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// busIdle closes node-to-node connections nobody used for this long; the
// callers' pools (busclient.go) drop theirs at half of it and dial again.
const busIdle = 5 * time.Minute

// busWrite bounds the write of one reply to a peer that stopped reading.
const busWrite = 10 * time.Second

// errWrongPassword is all a caller without the cluster password hears.
const errWrongPassword = "WRONGPASS wrong cluster password"

// busHandshake bounds a TLS handshake on the bus.
const busHandshake = 10 * time.Second

// startBus listens on addr, over TLS with tc (which should ask peers for
// a certificate) unless it is nil.
func startBus(serve func([][]byte, Replier), addr string, tc *tls.Config, pass string, log *slog.Logger) (*bus, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		ln = tls.NewListener(ln, tc)
	}
	b := &bus{serve: serve, pass: []byte(pass), write: busWrite, ln: ln, log: log,
		conns: map[net.Conn]struct{}{}}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

func (b *bus) addr() string { return b.ln.Addr().String() }

func (b *bus) accept() {
	defer b.wg.Done()
	for {
		nc, err := b.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				b.log.Error("cluster bus: accept", "err", err)
			}
			return
		}
		b.mu.Lock()
		b.conns[nc] = struct{}{}
		b.mu.Unlock()
		b.wg.Add(1)
		go b.conn(nc)
	}
}

// conn answers one peer connection, writing replies whenever the peer
// has no more commands in flight (a client may pipeline several).
func (b *bus) conn(nc net.Conn) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		delete(b.conns, nc)
		b.mu.Unlock()
		nc.Close()
	}()
	if tc, ok := nc.(*tls.Conn); ok {
		nc.SetDeadline(time.Now().Add(busHandshake))
		if err := tc.Handshake(); err != nil {
			b.log.Warn("cluster bus: TLS handshake refused", "remote", nc.RemoteAddr().String(), "err", err)
			return
		}
		nc.SetDeadline(time.Time{})
	}
	rd := resp.NewReader(nc)
	bw := bufio.NewWriterSize(nc, 32<<10)
	var w resp.Writer
	for {
		if rd.Buffered() == 0 {
			nc.SetReadDeadline(time.Now().Add(busIdle))
		}
		args, err := rd.ReadCommand()
		if err != nil {
			return
		}
		w.Buf = w.Buf[:0]
		if len(args) == 0 {
			continue
		}
		ok, guessed := b.authorized(args)
		switch {
		case ok:
			b.serve(args, &w)
		case guessed:
			// A wrong password: answer, and make the next guess cost a
			// new connection.
			w.Error(errWrongPassword)
			nc.SetWriteDeadline(time.Now().Add(b.write))
			bw.Write(w.Buf)
			bw.Flush()
			return
		default:
			// Anything else (a client opening with HELLO, say) hears the same.
			w.Error(errWrongPassword)
		}
		// The deadline is set before every write, not only before a flush:
		// a reply bigger than the buffer goes straight to the socket, and
		// under a deadline left from the last flush (long past after an
		// idle spell) it was cut, which the peer read as EOF.
		nc.SetWriteDeadline(time.Now().Add(b.write))
		if _, err := bw.Write(w.Buf); err != nil {
			return
		}
		if rd.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return
			}
		}
	}
}

// authorized reports whether a command is GEOSHARD SUB password ... with
// this cluster's password; guessed, whether it was of that form with
// another password.
func (b *bus) authorized(args [][]byte) (ok, guessed bool) {
	if len(args) < 4 || !strings.EqualFold(string(args[0]), "geoshard") {
		return false, false
	}
	ok = subtle.ConstantTimeCompare(args[2], b.pass) == 1
	return ok, !ok
}

func (b *bus) close() {
	b.ln.Close()
	b.mu.Lock()
	for nc := range b.conns {
		nc.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
