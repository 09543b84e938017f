package geo

import (
	"bufio"
	"fmt"
	"net"
	"testing"
	"time"

	"geoshard/internal/redistest"
	"geoshard/resp"
)

// startRedis runs a throw-away redis-server for the duration of the test
// and returns a connection to it.
func startRedis(t *testing.T) *respConn {
	t.Helper()
	addr := redistest.Start(t, "--loglevel", "warning")
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dialling redis-server on %s: %v", addr, err)
	}
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	rc := &respConn{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}
	t.Cleanup(func() { c.Close() })
	if pong, err := rc.do("PING"); err != nil || pong != "PONG" {
		t.Fatalf("redis-server on %s: PING = %v, %v", addr, pong, err)
	}
	return rc
}

// respConn is a minimal client: commands are arrays of bulk strings;
// replies decode with resp.ParseReply to string, int64, []any, nil or
// resp.ReplyError.
type respConn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func (c *respConn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

// do runs one command; an error reply comes back as the error.
func (c *respConn) do(args ...string) (any, error) {
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	v, err := c.read()
	if e, ok := v.(resp.ReplyError); ok && err == nil {
		return nil, e
	}
	return v, err
}

// pipeline sends all commands, then reads one reply per command; error
// replies are values.
func (c *respConn) pipeline(cmds [][]string) ([]any, error) {
	for _, cmd := range cmds {
		c.send(cmd...)
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	out := make([]any, len(cmds))
	for i := range cmds {
		v, err := c.read()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *respConn) read() (any, error) {
	raw, err := resp.ReadReply(c.r, nil)
	if err != nil {
		return nil, err
	}
	return resp.ParseReply(raw)
}
