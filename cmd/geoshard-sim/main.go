// Command geoshard-sim drives a running geoshard server with a synthetic
// city: drivers moving along the streets of the river-and-park metro
// (plan.DefaultMetro) at town speeds, each pinging its position (GEOADD)
// every 4 s, and riders searching for the nearest drivers (GEOSEARCH ...
// COUNT 10). Some streets cross the map's borders, some run along them.
// Once a second it prints the server's own figures from INFO shards:
// handoffs/s, flaps suppressed, the share of searches that fan out, and
// degraded searches. Only loopback targets are allowed.
//
// With -pings and/or -searches-file it replays recorded CSV files instead (the
// planner's format, docs/BORDERS.md), in the planner's order, so the
// server's counters can be set against geoshard-plan report's figures.
//
//	geoshard-sim [-addr 127.0.0.1:6379] [-duration 60s] [-drivers 1000] [-searches 20] [-speed 1]
//	geoshard-sim [-addr 127.0.0.1:6379] -pings p.csv -searches-file s.csv [-speed 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"geoshard/plan"
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
	if cfg.PingsFile != "" || cfg.SearchesFile != "" {
		err = runReplay(ctx, cfg, os.Stdout)
	} else {
		_, err = run(ctx, cfg, os.Stdout)
	}
	if err != nil && ctx.Err() == nil {
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
	fs.StringVar(&cfg.PingsFile, "pings", "", "replay this recorded pings CSV (time,id,lon,lat) instead of simulating")
	fs.StringVar(&cfg.SearchesFile, "searches-file", "", "replay this recorded searches CSV (time,lon,lat,radius_m[,count])")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "speed" {
			cfg.SpeedSet = true
		}
	})
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.Progress < tick {
		return cfg, fmt.Errorf("-progress %v is shorter than %v", cfg.Progress, tick)
	}
	if _, err := loopbackAddr(cfg.Addr); err != nil {
		return cfg, err
	}
	if cfg.PingsFile != "" || cfg.SearchesFile != "" {
		// A replay sends every event; -speed paces it only when given.
		if !(cfg.TimeScale >= 0 && cfg.TimeScale <= 1000) {
			return cfg, fmt.Errorf("-speed out of range 0..1000 (0: as fast as the server answers)")
		}
		return cfg, nil
	}
	return cfg, cfg.check()
}

// runReplay reads the recorded files and replays them.
func runReplay(ctx context.Context, cfg config, out io.Writer) error {
	w, err := plan.ReadWorkload(cfg.PingsFile, cfg.SearchesFile)
	if err != nil {
		return err
	}
	speed := 0.0
	if cfg.SpeedSet {
		speed = cfg.TimeScale
	}
	_, err = replay(ctx, cfg, w, speed, out)
	return err
}
