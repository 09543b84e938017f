package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// client is one connection to a target. It is used by one goroutine at a
// time: request/response in the closed loop, or a batch of pipelined
// commands during a load.
type client struct {
	addr    string // resolved loopback ip:port
	conn    net.Conn
	r       *bufio.Reader
	wbuf    []byte
	rbuf    []byte // the last reply's bytes, reused for the next
	timeout time.Duration
	// deadline is refreshed at most once a second rather than per request:
	// setting it costs a timer operation, and the loop is timing requests.
	deadlineAt time.Time
}

// dial connects to an already resolved loopback address and authenticates
// when a password is given.
func dial(ctx context.Context, addr, password string, timeout time.Duration) (*client, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true) // Go's default; stated because latency depends on it
	}
	c := &client{addr: addr, conn: conn, r: bufio.NewReaderSize(conn, 64<<10), timeout: timeout}
	if password != "" {
		rep, err := c.do(appendCommand(c.buf(), "AUTH", password))
		if err != nil {
			c.close()
			return nil, fmt.Errorf("AUTH on %s: %w", addr, err)
		}
		if rep.isError() {
			c.close()
			return nil, fmt.Errorf("AUTH on %s: %s", addr, rep.str)
		}
	}
	return c, nil
}

func (c *client) close() {
	if c.conn != nil {
		_ = c.conn.Close()
	}
}

// buf returns the write buffer, emptied, for building the next command(s).
func (c *client) buf() []byte { return c.wbuf[:0] }

func (c *client) refreshDeadline(now time.Time) error {
	if now.Sub(c.deadlineAt) < time.Second {
		return nil
	}
	c.deadlineAt = now
	return c.conn.SetDeadline(now.Add(c.timeout))
}

// send writes everything in cmds (one command or a pipeline) in one write.
func (c *client) send(cmds []byte) error {
	c.wbuf = cmds[:0] // keep the grown buffer for next time
	if err := c.refreshDeadline(time.Now()); err != nil {
		return err
	}
	if _, err := c.conn.Write(cmds); err != nil {
		return fmt.Errorf("write to %s: %w", c.addr, err)
	}
	return nil
}

func (c *client) receive(capture bool) (reply, error) {
	rep, rbuf, err := readReply(c.r, c.rbuf, capture)
	c.rbuf = rbuf
	if err != nil {
		return rep, fmt.Errorf("reply from %s: %w", c.addr, err)
	}
	return rep, nil
}

// do sends one command and reads its reply; a server error comes back as a
// reply with isError, a broken connection as an error.
func (c *client) do(cmd []byte) (reply, error) {
	if err := c.send(cmd); err != nil {
		return reply{}, err
	}
	return c.receive(false)
}

// command runs a command of string arguments and returns its reply, string
// values captured; server errors become Go errors. For control traffic.
func (c *client) command(args ...string) (reply, error) {
	if err := c.send(appendCommand(c.buf(), args...)); err != nil {
		return reply{}, err
	}
	rep, err := c.receive(true)
	if err != nil {
		return rep, err
	}
	if rep.isError() {
		return rep, fmt.Errorf("%s on %s: %s", args[0], c.addr, rep.str)
	}
	return rep, nil
}

// serverInfo is what the tool reads from INFO: CPU seconds the server used
// so far and its memory. Missing fields stay negative, reported as n/a.
type serverInfo struct {
	cpuSeconds float64 // used_cpu_sys + used_cpu_user
	usedMemory int64
	rss        int64 // used_memory_rss: what the operator pays for
}

// info reads INFO cpu and INFO memory. A server that lacks them is not an
// error: the report shows n/a for what could not be measured.
func (c *client) info() (serverInfo, error) {
	si := serverInfo{cpuSeconds: -1, usedMemory: -1, rss: -1}
	rep, err := c.command("INFO", "cpu")
	if err != nil {
		return si, err
	}
	fields := parseInfo(rep.str)
	sys, okSys := parseFloatField(fields, "used_cpu_sys")
	user, okUser := parseFloatField(fields, "used_cpu_user")
	if okSys && okUser {
		si.cpuSeconds = sys + user
	}
	rep, err = c.command("INFO", "memory")
	if err != nil {
		return si, err
	}
	mem := parseInfo(rep.str)
	if v, ok := parseIntField(mem, "used_memory"); ok {
		si.usedMemory = v
	}
	if v, ok := parseIntField(mem, "used_memory_rss"); ok {
		si.rss = v
	}
	return si, nil
}

// parseInfo splits INFO text ("# Section" headers, "key:value" lines).
func parseInfo(text string) map[string]string {
	fields := make(map[string]string)
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = v
		}
	}
	return fields
}

func parseFloatField(fields map[string]string, key string) (float64, bool) {
	v, err := strconv.ParseFloat(fields[key], 64)
	return v, err == nil
}

func parseIntField(fields map[string]string, key string) (int64, bool) {
	v, err := strconv.ParseInt(fields[key], 10, 64)
	return v, err == nil
}
