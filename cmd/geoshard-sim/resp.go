package main

import (
	"bufio"
	"fmt"
	"net"
	"time"

	"geoshard/resp"
)

// conn is a minimal RESP2 client: enough to pipeline commands and read
// their replies.
type conn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
	rbuf    []byte // the last reply's bytes, reused for the next
}

func dial(addr string, timeout time.Duration) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10), timeout: timeout}, nil
}

func (c *conn) Close() error { return c.c.Close() }

// send buffers one command; flush sends what is buffered.
func (c *conn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

func (c *conn) flush() error {
	c.c.SetDeadline(time.Now().Add(c.timeout))
	return c.w.Flush()
}

// do sends one command and reads its reply.
func (c *conn) do(args ...string) (any, error) {
	c.send(args...)
	if err := c.flush(); err != nil {
		return nil, err
	}
	return c.read()
}

// read reads one reply and decodes it (resp.ParseReply): string, int64,
// []any, nil, or a resp.ReplyError value (returned as the value, so a
// pipeline can go on reading).
func (c *conn) read() (any, error) {
	c.c.SetDeadline(time.Now().Add(c.timeout))
	raw, err := resp.ReadReply(c.r, c.rbuf[:0])
	c.rbuf = raw
	if err != nil {
		return nil, err
	}
	return resp.ParseReply(raw)
}
