package tests

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// env is what the whole test binary shares: the directory holding the
// geoshard binary and the processes still to kill at exit. It is created in
// TestMain and only read (or guarded by its mutex) afterwards.
type testEnv struct {
	dir string

	// builds holds one geoshard build per variant (race or not).
	builds [2]geoshardBuild

	mu    sync.Mutex
	procs map[*serverProc]struct{}
}

type geoshardBuild struct {
	once sync.Once
	path string
	err  error
}

var env *testEnv

func TestMain(m *testing.M) {
	if spec := os.Getenv(etcdChildEnv); spec != "" { // this process is a cluster test's etcd
		os.Exit(runEtcdChild(spec))
	}
	dir, err := os.MkdirTemp("", "geoshard-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "tests: creating temp dir: %v\n", err)
		os.Exit(2)
	}
	env = &testEnv{dir: dir, procs: map[*serverProc]struct{}{}}
	code := m.Run()
	// t.Cleanup normally stops every server; this catches the ones whose
	// test was interrupted (timeouts, t.FailNow in a helper goroutine).
	env.killAll()
	os.RemoveAll(dir)
	os.Exit(code)
}

func (e *testEnv) track(p *serverProc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.procs[p] = struct{}{}
}

func (e *testEnv) untrack(p *serverProc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.procs, p)
}

func (e *testEnv) killAll() {
	e.mu.Lock()
	procs := make([]*serverProc, 0, len(e.procs))
	for p := range e.procs {
		procs = append(procs, p)
	}
	e.mu.Unlock()
	for _, p := range procs {
		p.stop()
	}
}
