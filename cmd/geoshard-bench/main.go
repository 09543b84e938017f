// Command geoshard-bench is a load generator for Redis-protocol geo servers
// (redis-server, geoshard): a fleet of drivers in Gaussian metro clusters,
// small moves, nearest-K and wide radius searches, and a pipelined bulk load.
// Given two targets it interleaves them round by round and prints B/A ratios,
// which is how the project reports performance on a small, noisy machine.
//
// It is a client only and imports nothing from the rest of the module.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func main() { os.Exit(realMain()) }

func realMain() int {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoshard-bench:", err)
		return 2
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "geoshard-bench:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "geoshard-bench: starting CPU profile:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "geoshard-bench:", err)
		return 1
	}
	return 0
}
