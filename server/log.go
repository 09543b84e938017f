package server

import (
	"io"
	"log/slog"
)

// NewLogger returns the process logger the options ask for. Repeated
// messages are rate limited (see RateLimitHandler), so a flood of bad
// clients or degraded searches cannot drown the log; the router gets the
// same logger and so the same limit.
func NewLogger(w io.Writer, o Options) *slog.Logger {
	level := slog.LevelInfo
	switch o.LogLevel {
	case "debug", "verbose":
		level = slog.LevelDebug
	case "warning":
		level = slog.LevelWarn
	}
	h := &slog.HandlerOptions{Level: level}
	var base slog.Handler = slog.NewTextHandler(w, h)
	if o.LogFormat == "json" {
		base = slog.NewJSONHandler(w, h)
	}
	return slog.New(NewRateLimitHandler(base, DefaultLogBurst, DefaultLogEvery))
}
