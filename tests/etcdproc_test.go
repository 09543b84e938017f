package tests

// The cluster tests' etcd runs in a process of its own: this test binary
// started again with etcdChildEnv set serves etcd and nothing else. In
// the test process it shared the CPU (two threads under -race) with the
// load the tests generate, decoding ZRANGEs of 20,000 members and
// pipelines of hundreds of pings: at load 12 on 2 cores etcd answered
// nobody for over a second, every node's health check failed at once
// and the 1 s leases of live nodes lapsed (TestClusterReplicaKill, a
// partial answer through a node whose lease had lapsed). In production
// etcd is a process of its own too.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"geoshard/cluster/etcdtest"
)

// clusterEtcd is the etcd a test cluster registers with: a child
// process, or etcdtest's server in this process (TLS).
type clusterEtcd interface {
	endpoint() string
	Stop()
	Restart()
}

type inProcEtcd struct{ *etcdtest.Server }

func (e inProcEtcd) endpoint() string { return e.Endpoint }

func (p *etcdProc) endpoint() string { return p.Endpoint }

// etcdChildEnv holds "dir client-host:port peer-host:port" in the child.
const etcdChildEnv = "GEOSHARD_TEST_ETCD_CHILD"

// runEtcdChild serves etcd until stdin closes (the test binary is done
// with it, or died) and returns the exit code. TestMain calls it in the
// child instead of running tests.
func runEtcdChild(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: want dir, client and peer address\n", etcdChildEnv, spec)
		return 2
	}
	cfg := etcdtest.Config(f[0], url.URL{Scheme: "http", Host: f[1]}, url.URL{Scheme: "http", Host: f[2]})
	e, err := etcdtest.Run(cfg, 30*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	e.Server.HardStop()
	e.Close()
	return 0
}

// etcdProc is an etcd server in a child process, with etcdtest.Server's
// methods: Stop kills it (SIGKILL: an outage, its data kept), Restart
// starts it again on the same ports and data.
type etcdProc struct {
	t            testing.TB
	dir          string
	client, peer string
	Endpoint     string
	cmd          *exec.Cmd
	stdin        io.Closer
	out          *tailBuffer
	exited       chan struct{}
}

func startEtcdProc(t testing.TB) *etcdProc {
	t.Helper()
	var err error
	for range etcdtest.StartAttempts { // ports taken meanwhile: see etcdtest.StartAttempts
		p := &etcdProc{t: t, dir: t.TempDir(), client: freeAddr(t), peer: freeAddr(t)}
		p.Endpoint = p.client
		if err = p.launch(); err == nil {
			t.Cleanup(p.Stop)
			return p
		}
		if !etcdtest.PortTaken(err) {
			break
		}
	}
	t.Fatal(err)
	return nil
}

func freeAddr(t testing.TB) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
}

// Restart starts the child again on the same ports and data and waits
// until etcd serves.
func (p *etcdProc) Restart() {
	p.t.Helper()
	if err := p.launch(); err != nil {
		p.t.Fatal(err)
	}
}

// launch starts the child and waits until etcd serves (it says ready).
func (p *etcdProc) launch() error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), etcdChildEnv+"="+p.dir+" "+p.client+" "+p.peer)
	cmd.SysProcAttr = childProcAttr()
	p.out = &tailBuffer{limit: 64 << 10}
	cmd.Stderr = p.out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("etcd child: %w", err)
	}
	p.cmd, p.stdin, p.exited = cmd, stdin, make(chan struct{})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ready <- sc.Scan() && sc.Text() == "ready"
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		close(p.exited)
	}()
	select {
	case ok := <-ready:
		if !ok {
			p.Stop()
			return fmt.Errorf("etcd child did not start:\n%s", p.out.String())
		}
	case <-time.After(60 * time.Second):
		p.Stop()
		return fmt.Errorf("etcd child not ready after 60 s:\n%s", p.out.String())
	}
	return nil
}

// Stop kills the child at once, as a crash or a partition would, and
// waits for it to exit.
func (p *etcdProc) Stop() {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Kill()
	p.stdin.Close()
	<-p.exited
	p.cmd = nil
}
