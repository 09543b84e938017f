// Command geoshard-sim drives a running geoshard server with a synthetic
// city: drivers moving along the streets of the river-and-park metro
// (plan.DefaultMetro) at town speeds, each pinging its position (GEOADD)
// every 4 s, and riders searching for the nearest drivers (GEOSEARCH ...
// COUNT 10). Some streets cross the map's borders, some run along them.
// Once a second it prints the server's own figures from INFO shards:
// handoffs/s, flaps suppressed, the share of searches that fan out, and
// degraded searches. Only loopback targets are allowed.
//
//	geoshard-sim [-addr 127.0.0.1:6379] [-duration 60s] [-drivers 1000] [-searches 20] [-speed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoshard-sim:", err)
		os.Exit(2)
	}
	if st, err := os.Stdout.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		cfg.Live = true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, cfg, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "geoshard-sim:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("geoshard-sim", flag.ContinueOnError)
	var cfg config
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:6379", "server address (loopback only)")
	fs.StringVar(&cfg.Key, "key", "drivers", "geo key")
	fs.DurationVar(&cfg.Duration, "duration", time.Minute, "how long to run (wall clock)")
	fs.IntVar(&cfg.Drivers, "drivers", 1000, "drivers")
	fs.DurationVar(&cfg.Interval, "interval", 4*time.Second, "each driver's ping interval (simulated time)")
	fs.Float64Var(&cfg.SearchesPerSec, "searches", 20, "rider searches per simulated second")
	fs.Float64Var(&cfg.TimeScale, "speed", 1, "simulated seconds per real second (drivers move and ping that much faster)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	fs.DurationVar(&cfg.Progress, "progress", time.Second, "progress line interval")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.Progress < tick {
		return cfg, fmt.Errorf("-progress %v is shorter than %v", cfg.Progress, tick)
	}
	if _, err := loopbackAddr(cfg.Addr); err != nil {
		return cfg, err
	}
	return cfg, cfg.check()
}
