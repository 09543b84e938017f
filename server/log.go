package server

import (
	"io"
	"log/slog"
)

// NewLogger returns the process logger the options ask for.
func NewLogger(w io.Writer, o Options) *slog.Logger {
	level := slog.LevelInfo
	switch o.LogLevel {
	case "debug", "verbose":
		level = slog.LevelDebug
	case "warning":
		level = slog.LevelWarn
	}
	h := &slog.HandlerOptions{Level: level}
	if o.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, h))
	}
	return slog.New(slog.NewTextHandler(w, h))
}
