package tests

import (
	"bufio"
	"fmt"
	"net"
	"testing"
	"time"
)

const replyTimeout = 20 * time.Second

// rawConn sends commands and returns each reply as the exact bytes received.
type rawConn struct {
	name string
	c    net.Conn
	br   *bufio.Reader
	buf  []byte
}

func dialRaw(t testing.TB, p *serverProc) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dialing %s at %s: %v", p.name, p.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{name: p.name, c: c, br: bufio.NewReaderSize(c, 64<<10)}
}

// do sends one command and reads its reply.
func (rc *rawConn) do(args ...string) ([]byte, error) {
	replies, err := rc.pipeline([][]string{args})
	if err != nil {
		return nil, err
	}
	return replies[0], nil
}

// mustDo is do for set-up steps that cannot fail.
func (rc *rawConn) mustDo(t testing.TB, args ...string) []byte {
	t.Helper()
	r, err := rc.do(args...)
	if err != nil {
		t.Fatalf("%s: %s: %v", rc.name, quoteCommand(args), err)
	}
	return r
}

// send writes commands without reading replies.
func (rc *rawConn) send(cmds [][]string) error {
	rc.buf = rc.buf[:0]
	for _, args := range cmds {
		rc.buf = encodeCommand(rc.buf, args)
	}
	return rc.writeRaw(rc.buf)
}

func (rc *rawConn) writeRaw(b []byte) error {
	rc.c.SetWriteDeadline(time.Now().Add(replyTimeout))
	if _, err := rc.c.Write(b); err != nil {
		return fmt.Errorf("writing to %s: %w", rc.name, err)
	}
	return nil
}

// recv reads n replies.
func (rc *rawConn) recv(n int) ([][]byte, error) {
	rc.c.SetReadDeadline(time.Now().Add(replyTimeout))
	replies := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		r, err := readReply(rc.br)
		if err != nil {
			return replies, fmt.Errorf("reading reply %d of %d from %s (partial %q): %w", i+1, n, rc.name, r, err)
		}
		replies = append(replies, r)
	}
	return replies, nil
}

// pipeline writes all commands at once and reads one reply per command.
func (rc *rawConn) pipeline(cmds [][]string) ([][]byte, error) {
	if err := rc.send(cmds); err != nil {
		return nil, err
	}
	return rc.recv(len(cmds))
}
