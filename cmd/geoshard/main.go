// Command geoshard is a Redis-protocol geo server that splits each geo key
// by region across shards.
//
//	geoshard [config-file] [--directive value ...]
//
// With no arguments it serves 127.0.0.1:6379 on the embedded world map.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"geoshard/server"
)

func main() {
	opts, err := server.ParseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoshard:", err)
		os.Exit(2)
	}
	// The collector's pace is the process's, so main sets it, not the
	// server (tests run many servers in one process).
	go server.PaceGC(context.Background(), opts.GCPace())
	log := server.NewLogger(os.Stderr, opts)
	slog.SetDefault(log) // what packages without a logger of their own report goes the same way
	srv, err := server.New(opts, log)
	if err == nil {
		err = srv.Listen()
	}
	if err != nil {
		log.Error("cannot start", "err", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx); err != nil {
		log.Error("server failed", "err", err)
		os.Exit(1)
	}
}
