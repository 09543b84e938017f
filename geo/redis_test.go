package geo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"geoshard/internal/redistest"
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

// respConn is a minimal RESP2 client: commands are arrays of bulk
// strings; replies decode to string, int64, []any, nil or respError.
type respConn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

type respError string

func (e respError) Error() string { return string(e) }

func (c *respConn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

func (c *respConn) do(args ...string) (any, error) {
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	return c.read()
}

// pipeline sends all commands, then reads one reply per command.
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
		var re respError
		if err != nil && !errors.As(err, &re) {
			return nil, err
		}
		if err != nil {
			v = re
		}
		out[i] = v
	}
	return out, nil
}

func (c *respConn) line() (string, error) {
	s, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(s) < 3 || s[len(s)-2] != '\r' {
		return "", fmt.Errorf("bad RESP line %q", s)
	}
	return s[:len(s)-2], nil
}

func (c *respConn) read() (any, error) {
	l, err := c.line()
	if err != nil {
		return nil, err
	}
	switch l[0] {
	case '+':
		return l[1:], nil
	case '-':
		return nil, respError(l[1:])
	case ':':
		return strconv.ParseInt(l[1:], 10, 64)
	case '$':
		n, err := strconv.Atoi(l[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(l[1:])
		if err != nil || n < 0 {
			return nil, err
		}
		arr := make([]any, n)
		for i := range arr {
			if arr[i], err = c.read(); err != nil {
				return nil, err
			}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unknown RESP type in %q", l)
}
