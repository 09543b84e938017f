package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// conn is a minimal RESP2 client: enough to pipeline commands and read
// their replies.
type conn struct {
	c       net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
}

// errReply is an error the server sent (a "-ERR ..." line).
type errReply string

func (e errReply) Error() string { return string(e) }

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

// maxReply bounds what one reply may allocate.
const maxReply = 64 << 20

// read reads one reply: string, int64, []any, nil, or an errReply value
// (returned as the value, so a pipeline can go on reading).
func (c *conn) read() (any, error) {
	c.c.SetDeadline(time.Now().Add(c.timeout))
	return c.readDepth(0)
}

func (c *conn) readDepth(depth int) (any, error) {
	if depth > 8 {
		return nil, errors.New("reply nested too deep")
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("malformed reply line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return errReply(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n > maxReply {
			return nil, fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n > maxReply {
			return nil, fmt.Errorf("bad array length %q", body)
		}
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = c.readDepth(depth + 1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line[0])
}
