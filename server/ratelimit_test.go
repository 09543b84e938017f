package server

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter(2, 10*time.Second)
	l.now = func() time.Time { return now }
	type step struct {
		advance    time.Duration
		key        string
		ok         bool
		suppressed int64
	}
	steps := []step{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 0},
		{time.Second, "a", false, 0},
		{0, "b", true, 0}, // keys are independent
		{9 * time.Second, "a", true, 2},
		{0, "a", true, 0},
		{0, "a", false, 0},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		ok, sup := l.Allow(s.key)
		if ok != s.ok || sup != s.suppressed {
			t.Errorf("step %d (%s): Allow = %v, %d; want %v, %d", i, s.key, ok, sup, s.ok, s.suppressed)
		}
	}
}

func TestRateLimitHandler(t *testing.T) {
	var buf bytes.Buffer
	h := NewRateLimitHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), 3, time.Hour)
	log := slog.New(h).With("component", "test")
	for i := 0; i < 100; i++ {
		log.Warn("search degraded", "i", i)
		log.Info("routine", "i", i)
	}
	out := buf.String()
	if n := strings.Count(out, "search degraded"); n != 3 {
		t.Errorf("%d warnings passed, want 3:\n%s", n, out)
	}
	if n := strings.Count(out, "routine"); n != 100 {
		t.Errorf("%d info lines passed, want all 100", n)
	}
	// The window passes: the next warning says how many were dropped.
	h.lim.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	log.Warn("search degraded", "i", 100)
	if !strings.Contains(buf.String(), "suppressed=97") {
		t.Errorf("no suppressed count after the window:\n%s", buf.String())
	}
}

func TestIsLoopback(t *testing.T) {
	cases := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, false}, // as Redis 7.0 decides
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.1")}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, true},
	}
	for _, c := range cases {
		if got := isLoopback(c.addr); got != c.want {
			t.Errorf("isLoopback(%v) = %v", c.addr, got)
		}
	}
}
