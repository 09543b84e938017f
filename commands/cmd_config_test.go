package commands

import (
	"errors"
	"testing"
	"time"
)

// TestConfigPrepareOutsideLock: the slow step of a setting (reading a
// region map file) runs before CONFIG SET takes the keyspace, alone or
// queued in MULTI: while it runs, another client's command that needs the
// keyspace alone (SET) completes; only the apply step holds it.
func TestConfigPrepareOutsideLock(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmds [][]string
		want string
	}{
		{"CONFIG SET", [][]string{{"CONFIG", "SET", "slow", "v1"}}, "+OK\r\n"},
		{"in MULTI", [][]string{{"MULTI"}, {"CONFIG", "SET", "slow", "v1"}, {"EXEC"}}, "*1\r\n+OK\r\n"},
		{"refused value", [][]string{{"CONFIG", "SET", "slow", "bad"}},
			"-ERR CONFIG SET failed (possibly related to argument 'slow') - bad value\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			started, release := make(chan struct{}, 1), make(chan struct{})
			value := "v0"
			s.e.config.Add(&Setting{Name: "slow", Get: func() string { return value },
				Prepare: func(v string) (func() error, error) {
					started <- struct{}{}
					<-release
					if v == "bad" {
						return nil, errors.New("bad value")
					}
					return func() error { value = v; return nil }, nil
				}})
			for _, c := range tc.cmds[:len(tc.cmds)-1] {
				s.do(c...)
			}
			done := make(chan string)
			go func() { done <- s.do(tc.cmds[len(tc.cmds)-1]...) }()
			<-started
			other := make(chan string)
			go func() { other <- s.another().do("SET", "x", "1") }()
			select {
			case r := <-other:
				if r != "+OK\r\n" {
					t.Errorf("SET during the prepare step: %q", r)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("SET waited for the prepare step: it ran under the keyspace lock")
			}
			close(release)
			if r := <-done; r != tc.want {
				t.Errorf("got %q, want %q", r, tc.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	s := newSession(t)
	a, b := "1", "2"
	s.e.config.Add(&Setting{Name: "alpha", Get: func() string { return a }, Set: func(v string) error { a = v; return nil }})
	s.e.config.Add(&Setting{Name: "beta", Get: func() string { return b }, Set: func(v string) error {
		if v == "bad" {
			return errors.New("argument must be good")
		}
		b = v
		return nil
	}})
	s.e.config.Add(&Setting{Name: "fixed", Get: func() string { return "f" }})
	s.run([]step{
		{"CONFIG GET *a", "*4\r\n$5\r\nalpha\r\n$1\r\n1\r\n$4\r\nbeta\r\n$1\r\n2\r\n"},
		{"CONFIG GET ALPHA", "*2\r\n$5\r\nALPHA\r\n$1\r\n1\r\n"},
		{"CONFIG SET alpha 9 beta 8", "+OK\r\n"},
		{"CONFIG GET alpha beta", "*4\r\n$5\r\nalpha\r\n$1\r\n9\r\n$4\r\nbeta\r\n$1\r\n8\r\n"},
		{"CONFIG SET alpha 5 beta bad", "-ERR CONFIG SET failed (possibly related to argument 'beta') - argument must be good\r\n"},
		{"CONFIG GET alpha", "*2\r\n$5\r\nalpha\r\n$1\r\n9\r\n"},
		{"CONFIG SET fixed 1", "-ERR CONFIG SET failed (possibly related to argument 'fixed') - can't set immutable config\r\n"},
		{"CONFIG SET alpha 1 ALPHA 2", "-ERR CONFIG SET failed (possibly related to argument 'ALPHA') - duplicate parameter\r\n"},
		{"CONFIG SET nope 1 fixed 2", "-ERR Unknown option or number of arguments for CONFIG SET - 'nope'\r\n"},
		{"CONFIG REWRITE", "-ERR The server is running without a config file\r\n"},
	})
}
