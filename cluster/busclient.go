package cluster

// The calling side of the bus: a lean RESP client in place of go-redis.
// go-redis took a command as []any (a boxed string per argument), went
// through its hooks, pool and retry machinery, and decoded every reply
// word into an interface; on a cold load of 500-member GETPUTs that was a
// third of the calling node's CPU. Here a call encodes its words straight
// into the connection's buffer, writes them with one system call, and
// reads the reply with resp.ReadReply into a buffer the connection keeps.
//
// Deadlines are go-redis's: the write and the read each end at the
// sooner of the call's context deadline and now plus the call timeout. A
// connection that timed out, broke or read a malformed reply is closed,
// never reused: its next bytes may be the late answer to the call that
// gave up.

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"geoshard/resp"
)

// busPoolSize bounds the connections one peer's client has in use (as
// go-redis's PoolSize did); a call beyond them waits for one, within its
// deadline.
const busPoolSize = 32

// busKeepBuf is the largest buffer an idle connection keeps: a DUMP's
// reply of many megabytes is not held for the next PUT.
const busKeepBuf = 1 << 20

// errClientClosed is a call on a peer that the table dropped.
var errClientClosed = errors.New("bus client closed")

// busClient calls one peer's bus over a pool of connections.
type busClient struct {
	addr    string
	tc      *tls.Config
	timeout time.Duration
	slots   chan struct{} // one per connection in use

	mu     sync.Mutex
	idle   []*busConn // most recently used last
	closed bool

	pmu         sync.Mutex
	pipe        *pipe // the small calls' shared connection (buspipe.go)
	pipelineOff bool  // tests: no shared connection (NodeConfig.pipelineOff)
}

// busConn is one connection with the buffers its calls reuse.
type busConn struct {
	nc   net.Conn
	br   *bufio.Reader
	buf  []byte // the request being written, then the reply read
	used time.Time
}

func newBusClient(addr string, timeout time.Duration, tc *tls.Config) *busClient {
	return &busClient{addr: addr, tc: tc, timeout: timeout, slots: make(chan struct{}, busPoolSize)}
}

// do sends one command (each word a string, []byte or integer) and
// returns its reply as go-redis did: string, int64, []any or nil; an
// error reply is the error (resp.ReplyError).
func (c *busClient) do(ctx context.Context, args ...any) (any, error) {
	if len(args) > 1 && !c.pipelineOff {
		if sub, ok := args[1].(string); ok && pipelined(sub) {
			p, err := c.pipelined(ctx)
			if err != nil {
				return nil, err
			}
			if v, err := p.call(ctx, deadline(ctx, c.timeout), args); err != errPipeFull && err != errPipeGone {
				return v, err
			}
		}
	}
	select {
	case c.slots <- struct{}{}:
	default:
		if err := c.waitSlot(ctx); err != nil {
			return nil, err
		}
	}
	defer func() { <-c.slots }()
	bc, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	v, err := bc.roundTrip(ctx, c.timeout, args)
	var re resp.ReplyError
	if err != nil && !errors.As(err, &re) {
		bc.nc.Close()
		return nil, err
	}
	c.release(bc)
	return v, err
}

// errPoolTimeout is a call that found every connection busy until its
// deadline (go-redis's pool timeout).
var errPoolTimeout = errors.New("bus client: every connection busy")

// waitSlot waits for a connection to come free, until the call's
// deadline: a peer that hangs holds every connection until each call's
// deadline, and the calls behind them must not wait longer than theirs.
func (c *busClient) waitSlot(ctx context.Context) error {
	t := time.NewTimer(time.Until(deadline(ctx, c.timeout)))
	defer t.Stop()
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errPoolTimeout
	}
}

// pipelined returns the shared connection, dialing a new one when it
// failed or sat idle for busIdle/2.
func (c *busClient) pipelined(ctx context.Context) (*pipe, error) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.pipe != nil && c.pipe.usable() {
		return c.pipe, nil
	}
	if c.pipe != nil {
		c.pipe.fail(errPipeBroken)
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errClientClosed
	}
	bc, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	c.pipe = newPipe(bc.nc)
	return c.pipe, nil
}

// conn takes the most recently used idle connection, or dials one.
// Connections idle for busIdle/2 are closed: the bus closes them at
// busIdle, and a call must not pick one the other side is closing.
func (c *busClient) conn(ctx context.Context) (*busConn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errClientClosed
	}
	var stale []*busConn
	for len(c.idle) > 0 {
		bc := c.idle[len(c.idle)-1]
		c.idle = c.idle[:len(c.idle)-1]
		if time.Since(bc.used) < busIdle/2 {
			c.mu.Unlock()
			closeAll(stale)
			return bc, nil
		}
		stale = append(stale, bc)
	}
	c.mu.Unlock()
	closeAll(stale)
	return c.dial(ctx)
}

func closeAll(cs []*busConn) {
	for _, bc := range cs {
		bc.nc.Close()
	}
}

// dial connects within the call timeout (and the call's deadline): a
// node that refuses connections is down, which the caller hears at once.
func (c *busClient) dial(ctx context.Context) (*busConn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	d := &net.Dialer{}
	var nc net.Conn
	var err error
	if c.tc != nil {
		nc, err = (&tls.Dialer{NetDialer: d, Config: c.tc}).DialContext(ctx, "tcp", c.addr)
	} else {
		nc, err = d.DialContext(ctx, "tcp", c.addr)
	}
	if err != nil {
		return nil, err
	}
	return &busConn{nc: nc, br: bufio.NewReaderSize(nc, 32<<10)}, nil
}

// release puts a healthy connection back for the next call.
func (c *busClient) release(bc *busConn) {
	if cap(bc.buf) > busKeepBuf {
		bc.buf = nil
	}
	bc.used = time.Now()
	c.mu.Lock()
	if c.closed || len(c.idle) >= busPoolSize {
		c.mu.Unlock()
		bc.nc.Close()
		return
	}
	c.idle = append(c.idle, bc)
	c.mu.Unlock()
}

// close closes the idle connections and makes later calls fail; calls
// under way close theirs when they end (release).
func (c *busClient) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.dropIdle()
	c.pmu.Lock()
	if c.pipe != nil {
		c.pipe.fail(errClientClosed)
	}
	c.pmu.Unlock()
}

// dropIdle closes the idle connections, so the next call dials.
func (c *busClient) dropIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	closeAll(idle)
}

// deadline is the sooner of ctx's deadline and now plus timeout.
func deadline(ctx context.Context, timeout time.Duration) time.Time {
	d := time.Now().Add(timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

// roundTrip writes one command and reads its reply.
func (bc *busConn) roundTrip(ctx context.Context, timeout time.Duration, args []any) (any, error) {
	var err error
	if bc.buf, err = appendCommand(bc.buf[:0], args); err != nil {
		return nil, err
	}
	bc.nc.SetWriteDeadline(deadline(ctx, timeout))
	if _, err := bc.nc.Write(bc.buf); err != nil {
		return nil, err
	}
	bc.nc.SetReadDeadline(deadline(ctx, timeout))
	if bc.buf, err = resp.ReadReply(bc.br, bc.buf[:0]); err != nil {
		return nil, err
	}
	v, err := resp.ParseReply(bc.buf)
	if err != nil {
		return nil, err
	}
	if re, ok := v.(resp.ReplyError); ok {
		return nil, re
	}
	return v, nil
}

// appendCommand appends args as a RESP array of bulk strings.
func appendCommand(b []byte, args []any) ([]byte, error) {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for i, a := range args {
		switch v := a.(type) {
		case string:
			b = appendBulk(b, v)
		case []byte:
			b = appendBulk(b, v)
		case int:
			b = appendBulk(b, strconv.AppendInt(nil, int64(v), 10))
		case int64:
			b = appendBulk(b, strconv.AppendInt(nil, v, 10))
		default:
			return b, fmt.Errorf("bus command word %d: cannot send a %T", i, a)
		}
	}
	return b, nil
}

func appendBulk[S string | []byte](b []byte, s S) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}
