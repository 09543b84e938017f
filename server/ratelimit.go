package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// The default log limit: each distinct message at most DefaultLogBurst
// times per DefaultLogEvery.
const (
	DefaultLogBurst = 5
	DefaultLogEvery = 10 * time.Second
)

// maxLimiterKeys bounds the limiter's memory should keys ever come from
// input; log messages are constants, so this is only a safety net.
const maxLimiterKeys = 4096

// Limiter lets each key through at most burst times per window and counts
// what it holds back, so the next message through can say how many were
// dropped.
type Limiter struct {
	burst int
	every time.Duration
	now   func() time.Time // time.Now; tests move the clock themselves

	mu   sync.Mutex
	keys map[string]*limitState
}

type limitState struct {
	start      time.Time
	n          int
	suppressed int64
}

// NewLimiter returns a limiter of burst events per window every.
func NewLimiter(burst int, every time.Duration) *Limiter {
	return &Limiter{burst: max(burst, 1), every: every, now: time.Now, keys: make(map[string]*limitState)}
}

// Allow reports whether an event of key may pass now and, if so, how many
// of the key's events were held back since the last one that passed.
func (l *Limiter) Allow(key string) (ok bool, suppressed int64) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.keys[key]
	if st == nil {
		if len(l.keys) >= maxLimiterKeys {
			clear(l.keys)
		}
		st = &limitState{start: now}
		l.keys[key] = st
	}
	if now.Sub(st.start) >= l.every {
		st.start, st.n = now, 0
	}
	if st.n >= l.burst {
		st.suppressed++
		return false, 0
	}
	st.n++
	suppressed, st.suppressed = st.suppressed, 0
	return true, suppressed
}

// RateLimitHandler passes records to another slog.Handler, limiting each
// distinct message at warning level and above; debug and info records pass
// untouched. A record that follows dropped ones carries "suppressed=N".
type RateLimitHandler struct {
	next slog.Handler
	lim  *Limiter
}

// NewRateLimitHandler wraps next with a limit of burst records per message
// per window every.
func NewRateLimitHandler(next slog.Handler, burst int, every time.Duration) *RateLimitHandler {
	return &RateLimitHandler{next: next, lim: NewLimiter(burst, every)}
}

// Enabled implements slog.Handler.
func (h *RateLimitHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *RateLimitHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	ok, dropped := h.lim.Allow(r.Message)
	if !ok {
		return nil
	}
	if dropped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int64("suppressed", dropped))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler; the limit stays shared.
func (h *RateLimitHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &RateLimitHandler{next: h.next.WithAttrs(as), lim: h.lim}
}

// WithGroup implements slog.Handler; the limit stays shared.
func (h *RateLimitHandler) WithGroup(name string) slog.Handler {
	return &RateLimitHandler{next: h.next.WithGroup(name), lim: h.lim}
}
