package tests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	redisServerPath = "/usr/bin/redis-server"
	readyTimeout    = 20 * time.Second
	startAttempts   = 3
)

// serverProc is one redis-server or geoshard process on a loopback port.
type serverProc struct {
	name   string
	addr   string
	port   int
	cmd    *exec.Cmd
	out    *tailBuffer
	exited chan struct{}

	// quiet: do not show the output when a test fails (redis-server's
	// start-up banner helps nobody); a crash is always shown.
	quiet bool

	waitErr  error // valid once exited is closed
	stopping chan struct{}
	stopOnce sync.Once
}

// redisBinary finds the reference server and insists on 7.0.x, the version
// GEO-SPEC.md describes; other versions format replies differently.
func redisBinary(t testing.TB) string {
	t.Helper()
	path := redisServerPath
	if _, err := os.Stat(path); err != nil {
		if p, lerr := exec.LookPath("redis-server"); lerr == nil {
			path = p
		} else {
			t.Fatalf("redis-server is not installed (%v); the tests need Redis 7.0 as the reference: "+
				".ci/run installs it (apt-get install redis-server)", err)
		}
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", path, err, out)
	}
	if !strings.Contains(string(out), "v=7.0.") {
		t.Fatalf("%s is not Redis 7.0 (%s); the reference must be 7.0.x (Debian 12 redis-server)",
			path, strings.TrimSpace(string(out)))
	}
	return path
}

// startRedis starts a throw-away redis-server with persistence off, plus
// any extra directives.
func startRedis(t testing.TB, directives ...string) *serverProc {
	t.Helper()
	bin := redisBinary(t)
	p := startServer(t, "redis", bin, func(port int) []string {
		return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no"}, directives...)
	})
	p.quiet = true
	return p
}

// startGeoshard builds geoshard (once per test binary) and starts it with
// the given extra directives. Under -race the server is built with -race
// too, so the end-to-end tests double as a race check of the server. A
// build failure fails the calling test.
func startGeoshard(t testing.TB, name string, directives ...string) *serverProc {
	t.Helper()
	race := raceEnabled && os.Getenv("GEOSHARD_E2E_RACE") != "0"
	return startGeoshardBuild(t, race, name, directives...)
}

// startGeoshardPlain starts a geoshard built without -race. The long
// single-connection differential streams use it: they check replies, not
// concurrency, and run ten times slower against a race-enabled server.
func startGeoshardPlain(t testing.TB, name string, directives ...string) *serverProc {
	t.Helper()
	return startGeoshardBuild(t, false, name, directives...)
}

func startGeoshardBuild(t testing.TB, race bool, name string, directives ...string) *serverProc {
	t.Helper()
	bin := geoshardBinary(t, race)
	return startServer(t, name, bin, func(port int) []string {
		// Snapshots go to a directory of the test's own unless it names one.
		return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir()}, directives...)
	})
}

func geoshardBinary(t testing.TB, race bool) string {
	t.Helper()
	b := &env.builds[0]
	if race {
		b = &env.builds[1]
	}
	b.once.Do(func() { b.path, b.err = buildGeoshard(env.dir, race) })
	if b.err != nil {
		t.Fatalf("geoshard does not build, so this test cannot run against it:\n%v", b.err)
	}
	return b.path
}

func buildGeoshard(dir string, race bool) (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", fmt.Errorf("locating repository root: %w", err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module geoshard") {
		return "", fmt.Errorf("%s is not the geoshard module root (go.mod: %v)", root, err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	bin := filepath.Join(dir, "geoshard")
	args := []string{"build", "-o", bin}
	if race {
		bin += "-race"
		args = []string{"build", "-race", "-o", bin}
	}
	args = append(args, "geoshard/cmd/geoshard")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("(cd %s && %s %s): %w\n%s", root, goBin, strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// startServer runs bin on a free loopback port and waits until it answers
// PING. A port taken between choosing and binding is retried.
func startServer(t testing.TB, name, bin string, args func(port int) []string) *serverProc {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < startAttempts; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		p, err := spawn(name, bin, port, args(port))
		if err != nil {
			t.Fatalf("starting %s: %v", name, err)
		}
		if err = p.waitReady(readyTimeout); err == nil {
			t.Cleanup(func() { p.finish(t) })
			return p
		}
		p.stop()
		lastErr = fmt.Errorf("%w\n%s output:\n%s", err, name, p.out.String())
		if !p.exitedEarly() {
			break // it ran but never answered: retrying would not help
		}
	}
	t.Fatalf("%s did not start: %v", name, lastErr)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func spawn(name, bin string, port int, args []string) (*serverProc, error) {
	p := &serverProc{
		name:     name,
		port:     port,
		addr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		out:      &tailBuffer{limit: 64 << 10},
		exited:   make(chan struct{}),
		stopping: make(chan struct{}),
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	p.cmd.SysProcAttr = childProcAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
	}
	env.track(p)
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *serverProc) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before answering PING: %v", p.name, p.waitErr)
		default:
		}
		if lastErr = ping(p.addr); lastErr == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer PING on %s within %v: %v", p.name, p.addr, timeout, lastErr)
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	reply, err := readReply(bufio.NewReader(c))
	if err != nil {
		return err
	}
	if string(reply) != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", reply)
	}
	return nil
}

// exitedEarly reports whether the process ended without being stopped.
func (p *serverProc) exitedEarly() bool {
	select {
	case <-p.exited:
	default:
		return false
	}
	select {
	case <-p.stopping:
		return false
	default:
		return true
	}
}

// alive reports whether the process is still running.
func (p *serverProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *serverProc) stop() {
	p.stopOnce.Do(func() {
		close(p.stopping)
		p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
		}
		env.untrack(p)
	})
}

// finish stops the process at the end of a test and reports a crash during
// the test (a panic in geoshard shows up here with its stack in the log).
func (p *serverProc) finish(t testing.TB) {
	crashed := p.exitedEarly()
	p.stop()
	if crashed {
		t.Errorf("%s (%s) exited during the test: %v\noutput:\n%s", p.name, p.addr, p.waitErr, p.out.String())
		return
	}
	if t.Failed() && !p.quiet {
		t.Logf("%s (%s) output, last %d bytes:\n%s", p.name, p.addr, p.out.limit, p.out.String())
	}
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return "[...]\n" + string(b.buf)
	}
	return string(b.buf)
}

var errClosed = errors.New("connection closed by server")
