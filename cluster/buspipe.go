package cluster

// Small calls to one peer share one pipelined connection: while one call
// writes, the calls that come meanwhile queue their commands and go out
// with the next write; the bus reads them together and answers them with
// one write (bus.conn flushes when no command is left to read), and one
// reader here hands each answer to its caller in order. Sixteen clients
// writing through a non-owner with replicas send a PUT each to the
// primary at the same time: on pooled connections that was a message,
// two system calls and a wake-up on each side per PUT.
//
// Only commands the bus answers in microseconds go this way (pipelined):
// the bus serves a connection's commands one after the other, and behind
// a DUMP or a big search the others would wait their whole time. A write
// waiting for a table swap (Node.serving) holds up the calls behind it,
// which on connections of their own would wait for the same swap.
// A call that reaches its deadline leaves; its answer, if it comes, is
// read and dropped. Only when no answer came by the deadline of every
// call waiting (the peer does not answer) is the connection closed and
// the calls failed: a call late for want of CPU here must not take the
// others down with it.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"geoshard/resp"
)

// pipelined reports the internal commands that may share a connection.
func pipelined(sub string) bool {
	switch sub {
	case "PUT", "PUTIF", "PUTMANY", "DEL", "GIVEWAY", "GET", "OWNER", "FRESH":
		return true
	}
	return false
}

// errPipeBroken is a call on a connection that failed before its answer.
var errPipeBroken = errors.New("bus connection failed")

// errPipeGone is a call that found the connection failed before it was
// sent (a call just before it timed out on a hung peer): it goes on a
// pooled one, and meets the peer's state for itself.
var errPipeGone = errors.New("bus connection gone")

// errPipeFull is a call that found busPipeMax calls waiting on the
// connection (a peer that stopped answering): it goes on a pooled one.
var errPipeFull = errors.New("bus connection full")

// busPipeMax bounds the calls waiting on the shared connection, answered
// or abandoned: a hung peer's keep coming until their deadlines.
const busPipeMax = 1024

// pipe is one connection shared by concurrent calls.
type pipe struct {
	nc net.Conn
	br *bufio.Reader

	mu      sync.Mutex
	out     []byte // commands queued, not yet written
	spare   []byte
	writing bool        // a caller is writing out
	queue   []*pipeCall // written or queued; the answers come in this order
	err     error       // set once the connection failed
	rdl     time.Time   // the read deadline in force: the latest call's
	used    time.Time   // the last call
}

type pipeCall struct {
	done chan struct{} // closed once v and err are set
	v    any
	err  error
}

func newPipe(nc net.Conn) *pipe {
	p := &pipe{nc: nc, br: bufio.NewReaderSize(nc, 32<<10), used: time.Now()}
	go p.read()
	return p
}

// call queues one command, writes the queue unless another call is
// writing it, and waits for the answer until dl.
func (p *pipe) call(ctx context.Context, dl time.Time, args []any) (any, error) {
	pc := &pipeCall{done: make(chan struct{})}
	p.mu.Lock()
	if p.err != nil {
		// It failed between the caller's pick and now, before this
		// call was sent: its failure is not this call's.
		p.mu.Unlock()
		return nil, errPipeGone
	}
	if len(p.queue) >= busPipeMax {
		p.mu.Unlock()
		return nil, errPipeFull
	}
	var err error
	if p.out, err = appendCommand(p.out, args); err != nil {
		p.mu.Unlock()
		return nil, err
	}
	p.queue = append(p.queue, pc)
	p.used = time.Now()
	if dl.After(p.rdl) {
		p.rdl = dl
		p.nc.SetReadDeadline(dl)
	}
	if !p.writing {
		p.writeOut(dl)
	}
	p.mu.Unlock()
	return p.wait(ctx, dl, pc)
}

// writeOut writes the queued commands, and those queued while it wrote;
// it holds p.mu except while writing.
func (p *pipe) writeOut(dl time.Time) {
	p.writing = true
	for len(p.out) > 0 && p.err == nil {
		buf := p.out
		p.out = p.spare[:0]
		p.mu.Unlock()
		p.nc.SetWriteDeadline(dl)
		_, err := p.nc.Write(buf)
		p.mu.Lock()
		if cap(buf) <= busKeepBuf {
			p.spare = buf
		}
		if err != nil {
			p.failLocked(err)
		}
	}
	p.writing = false
}

// wait waits for pc's answer until dl (ctx's own deadline, when that is
// dl, needs no timer of its own) or until ctx is canceled; a call that
// leaves early abandons its answer to the reader.
func (p *pipe) wait(ctx context.Context, dl time.Time, pc *pipeCall) (any, error) {
	var expired <-chan time.Time
	if cd, ok := ctx.Deadline(); !ok || cd.After(dl) {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-pc.done:
		return pc.v, pc.err
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ctx.Err()
		}
	case <-expired:
	}
	return nil, fmt.Errorf("bus call: %w", os.ErrDeadlineExceeded)
}

// read hands the answers to their calls in order, until the connection
// fails.
func (p *pipe) read() {
	var buf []byte
	for {
		var err error
		buf, err = resp.ReadReply(p.br, buf[:0])
		if err != nil && len(buf) == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			if p.idle() {
				continue
			}
			return // idle failed the connection
		}
		if err != nil {
			p.fail(fmt.Errorf("%w: %w", errPipeBroken, err))
			return
		}
		v, err := resp.ParseReply(buf)
		if re, ok := v.(resp.ReplyError); ok {
			v, err = nil, re
		}
		if cap(buf) > busKeepBuf {
			buf = nil
		}
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.failLocked(fmt.Errorf("%w: an answer nobody asked for", errPipeBroken))
			p.mu.Unlock()
			return
		}
		pc := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.mu.Unlock()
		pc.v, pc.err = v, err
		close(pc.done)
	}
}

func (p *pipe) fail(err error) {
	p.mu.Lock()
	p.failLocked(err)
	p.mu.Unlock()
}

// failLocked closes the connection and fails every call still waiting.
func (p *pipe) failLocked(err error) {
	if p.err != nil {
		return
	}
	p.err = err
	p.nc.Close()
	for _, pc := range p.queue {
		pc.err = err
		close(pc.done)
	}
	p.queue = nil
}

// idle reports, after the read deadline passed with nothing read,
// whether no call waits (the deadline is then lifted until the next
// call) or a call came meanwhile and moved it on: the reader goes on.
// Otherwise the calls waiting are past their deadlines, and it fails the
// connection under the same lock, so that no call joins it between the
// verdict and the failure (it would fail at once with the others'
// timeout).
func (p *pipe) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		p.rdl = time.Time{}
		p.nc.SetReadDeadline(time.Time{})
		return true
	}
	if time.Now().Before(p.rdl) {
		return true
	}
	p.failLocked(fmt.Errorf("%w: %w", errPipeBroken, os.ErrDeadlineExceeded))
	return false
}

// usable reports whether new calls may go on this connection: it has not
// failed, and has not been idle so long that the bus may be closing it.
func (p *pipe) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err == nil && time.Since(p.used) < busIdle/2
}
