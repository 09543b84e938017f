package commands

import (
	"strings"
	"testing"

	"geoshard/router"
)

// session drives one client of a fresh engine, as a connection would.
type session struct {
	t testing.TB
	e *Engine
	c *Client
}

func newSession(t testing.TB) *session {
	t.Helper()
	e := testEngine(t)
	return &session{t: t, e: e, c: e.NewClient("127.0.0.1:50000", "127.0.0.1:6379")}
}

// testEngine is an engine whose SAVE writes into the test's own directory.
func testEngine(t testing.TB) *Engine {
	cfg := NewConfig()
	dir := t.TempDir()
	cfg.Add(&Setting{Name: "dir", Get: func() string { return dir }})
	// As the reference redis-server of the differential tests runs.
	cfg.SetProtectedActions(AllowNo, AllowYes)
	return New(router.New(router.Config{}), cfg)
}

// another opens a second connection to the same engine.
func (s *session) another() *session {
	return &session{t: s.t, e: s.e, c: s.e.NewClient("127.0.0.1:50001", "127.0.0.1:6379")}
}

// do runs one command and returns its raw reply.
func (s *session) do(args ...string) string {
	s.t.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	s.c.W.Buf = s.c.W.Buf[:0]
	s.e.Exec(s.c, argv)
	return string(s.c.W.Buf)
}

// line runs a command written as space-separated words.
func (s *session) line(cmd string) string {
	s.t.Helper()
	return s.do(strings.Fields(cmd)...)
}

// step is one command of a table and the raw reply it must get.
type step struct {
	cmd  string
	want string
}

// run plays the steps in order on one session.
func (s *session) run(steps []step) {
	s.t.Helper()
	for _, st := range steps {
		if got := s.line(st.cmd); got != st.want {
			s.t.Errorf("%s\n got %q\nwant %q", st.cmd, got, st.want)
		}
	}
}
