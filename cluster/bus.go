package cluster

import (
	"bufio"
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
type bus struct {
	serve func(args [][]byte, w Replier) // the node's ServeInternal
	write time.Duration                  // bound on writing one reply
	ln    net.Listener
	log   *slog.Logger

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// busIdle closes node-to-node connections nobody used for this long; the
// go-redis pools on the other side dial again when needed.
const busIdle = 5 * time.Minute

// busWrite bounds the write of one reply to a peer that stopped reading.
const busWrite = 10 * time.Second

func startBus(serve func([][]byte, Replier), addr string, log *slog.Logger) (*bus, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	b := &bus{serve: serve, write: busWrite, ln: ln, log: log, conns: map[net.Conn]struct{}{}}
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
// has no more commands in flight (go-redis pipelines several).
func (b *bus) conn(nc net.Conn) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		delete(b.conns, nc)
		b.mu.Unlock()
		nc.Close()
	}()
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
		switch {
		case len(args) == 0:
			continue
		case len(args) < 4 || !strings.EqualFold(string(args[0]), "geoshard"):
			w.Error("ERR the cluster bus only answers GEOSHARD commands")
		default:
			b.serve(args, &w)
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

func (b *bus) close() {
	b.ln.Close()
	b.mu.Lock()
	for nc := range b.conns {
		nc.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
