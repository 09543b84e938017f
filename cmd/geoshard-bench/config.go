package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

type phaseKind int

const (
	phaseLoad   phaseKind = iota // pipelined bulk GEOADD of the whole fleet
	phaseUpdate                  // one GEOADD per request: a driver moved a little
	phaseKNN                     // nearest-K GEOSEARCH with COUNT and WITHDIST
	phaseWide                    // radius GEOSEARCH without COUNT: big replies
	phaseMix                     // updates and nearest-K searches, by share
	phaseIdle                    // no requests: what RSS settles to after the phases before
)

var phaseNames = map[string]phaseKind{
	"load": phaseLoad, "update": phaseUpdate, "knn": phaseKNN, "wide": phaseWide, "mix": phaseMix,
	"idle": phaseIdle,
}

// defaultIdle is how long an "idle" phase waits unless it says ("idle:30").
const defaultIdle = 10 * time.Second

// phaseSpec is one entry of -mode. Searches may carry their own radius,
// "knn:5" or "wide:10", so one run can show how cost grows with radius.
type phaseSpec struct {
	name     string // as written in -mode, shown in the report
	kind     phaseKind
	radiusKm float64       // search radius; 0 for load and update
	idle     time.Duration // idle phases: how long no request is sent
}

type config struct {
	targets      []string
	password     string
	key          string
	drivers      int
	seed         uint64
	phases       []phaseSpec
	conns        int
	duration     time.Duration // per phase and target; split over rounds
	requests     int           // per phase and target; 0 = only time-bound
	rounds       int           // interleaved rounds per phase with two targets
	radiusKm     float64
	count        int
	wideRadiusKm float64
	mixUpdate    float64 // share of updates in the mix phase
	background   float64 // share of drivers spread uniformly
	loadBatch    int     // members per GEOADD during load
	loadPipeline int     // GEOADDs in flight per connection during load
	loadConns    int
	timeout      time.Duration
	jsonPath     string
	cpuProfile   string
	quick        bool
}

// targetList collects repeated -target flags.
type targetList []string

func (t *targetList) String() string { return strings.Join(*t, ",") }
func (t *targetList) Set(v string) error {
	*t = append(*t, v)
	return nil
}

const defaultModes = "load,update,knn,wide,mix"

// parseFlags reads the command line. -quick changes the defaults only: a
// flag given explicitly always wins.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	var targets targetList
	var a, b, modes string
	var seed uint64
	fs := flag.NewFlagSet("geoshard-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: geoshard-bench [flags]\n\n"+
			"Load generator for Redis-protocol geo servers (redis-server, geoshard).\n"+
			"With two targets it interleaves them A,B,B,A... and prints B/A ratios.\n"+
			"Only loopback targets are accepted.\n\n")
		fs.PrintDefaults()
	}
	fs.Var(&targets, "target", "server `host:port` (repeat for a second target; loopback only)")
	fs.StringVar(&a, "a", "", "first target `host:port` (same as the first -target)")
	fs.StringVar(&b, "b", "", "second target `host:port` (same as the second -target)")
	fs.StringVar(&cfg.password, "password", "", "AUTH password for the targets")
	fs.StringVar(&cfg.key, "key", "drivers", "geo key to use (deleted and reloaded by the load phase)")
	fs.IntVar(&cfg.drivers, "n", 1_000_000, "number of drivers")
	fs.Uint64Var(&seed, "seed", 1, "random seed: same seed, same fleet and request streams")
	fs.StringVar(&modes, "mode", defaultModes, "comma-separated phases to run in order: load, update, knn[:km], wide[:km], mix, idle[:s] (no requests for s seconds, default 10: where RSS settles)")
	fs.IntVar(&cfg.conns, "c", 50, "connections per target (closed loop, one request in flight each)")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "time per phase and target (0: bounded by -requests only)")
	fs.IntVar(&cfg.requests, "requests", 0, "requests per phase and target (0: bounded by -duration only)")
	fs.IntVar(&cfg.rounds, "rounds", 10, "interleaved rounds per phase when comparing two targets (A,B then B,A ...)")
	fs.Float64Var(&cfg.radiusKm, "radius", 2, "knn search radius in km")
	fs.IntVar(&cfg.count, "count", 10, "knn COUNT")
	fs.Float64Var(&cfg.wideRadiusKm, "wide-radius", 5, "wide search radius in km")
	fs.Float64Var(&cfg.mixUpdate, "mix-update", 0.8, "share of updates in the mix phase (rest: knn)")
	fs.Float64Var(&cfg.background, "background", 0.1, "share of drivers spread uniformly over the region")
	fs.IntVar(&cfg.loadBatch, "load-batch", 100, "members per GEOADD during load")
	fs.IntVar(&cfg.loadPipeline, "load-pipeline", 16, "GEOADD commands in flight per connection during load")
	fs.IntVar(&cfg.loadConns, "load-conns", 4, "connections used by the load phase")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "per-request network timeout")
	fs.StringVar(&cfg.jsonPath, "json", "", "also write the report as JSON to this `file`")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write this tool's CPU profile to `file` (to check the client is not the bottleneck)")
	fs.BoolVar(&cfg.quick, "quick", false, "smoke test: 20000 drivers, 1s phases (explicit flags still win)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.quick {
		if !set["n"] {
			cfg.drivers = 20_000
		}
		if !set["duration"] {
			cfg.duration = time.Second
		}
	}
	cfg.seed = seed
	for _, t := range []string{a, b} {
		if t != "" {
			cfg.targets = append(cfg.targets, t)
		}
	}
	cfg.targets = append(cfg.targets, targets...)
	if len(cfg.targets) == 0 {
		cfg.targets = []string{"127.0.0.1:6379"}
	}
	var err error
	if cfg.phases, err = parseModes(modes, cfg); err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

func parseModes(s string, cfg config) ([]phaseSpec, error) {
	var phases []phaseSpec
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, arg, hasArg := strings.Cut(part, ":")
		kind, ok := phaseNames[name]
		if !ok {
			return nil, fmt.Errorf("-mode: unknown phase %q (want load, update, knn, wide, mix, idle)", name)
		}
		ph := phaseSpec{name: part, kind: kind}
		if kind == phaseIdle {
			var err error
			if ph.idle, err = parseIdle(arg, hasArg); err != nil {
				return nil, fmt.Errorf("-mode: %q: %w", part, err)
			}
			phases = append(phases, ph)
			continue
		}
		switch kind {
		case phaseKNN, phaseMix:
			ph.radiusKm = cfg.radiusKm
		case phaseWide:
			ph.radiusKm = cfg.wideRadiusKm
		}
		if hasArg {
			if ph.radiusKm == 0 {
				return nil, fmt.Errorf("-mode: phase %q takes no radius", name)
			}
			r, err := strconv.ParseFloat(arg, 64)
			if err != nil || r <= 0 {
				return nil, fmt.Errorf("-mode: %q: radius must be a positive number of km", part)
			}
			ph.radiusKm = r
		}
		phases = append(phases, ph)
	}
	if len(phases) == 0 {
		return nil, errors.New("-mode: no phases given")
	}
	return phases, nil
}

// parseIdle reads an idle phase's seconds, defaultIdle if none is given.
func parseIdle(arg string, given bool) (time.Duration, error) {
	if !given {
		return defaultIdle, nil
	}
	sec, err := strconv.ParseFloat(arg, 64)
	if err != nil || sec <= 0 || sec > 3600 {
		return 0, errors.New("idle takes a number of seconds, 0 to 3600")
	}
	return time.Duration(sec * float64(time.Second)), nil
}

func (cfg config) validate() error {
	switch {
	case len(cfg.targets) > 2:
		return fmt.Errorf("at most two targets, got %d", len(cfg.targets))
	case cfg.key == "":
		return errors.New("-key must not be empty")
	case cfg.conns < 1 || cfg.conns > 10_000:
		return fmt.Errorf("-c %d: want 1..10000", cfg.conns)
	case cfg.drivers < cfg.conns:
		// Each connection moves its own share of drivers, so updates need
		// at least one driver per connection.
		return fmt.Errorf("-n %d: want at least one driver per connection (-c %d)", cfg.drivers, cfg.conns)
	case cfg.drivers > 100_000_000:
		return fmt.Errorf("-n %d: at most 100000000", cfg.drivers)
	case cfg.duration < 0 || cfg.requests < 0:
		return errors.New("-duration and -requests must not be negative")
	case cfg.duration == 0 && cfg.requests == 0:
		return errors.New("give -duration or -requests (or both): phases must be bounded")
	case cfg.rounds < 1 || cfg.rounds > 1000:
		return fmt.Errorf("-rounds %d: want 1..1000", cfg.rounds)
	case cfg.radiusKm <= 0 || cfg.wideRadiusKm <= 0:
		return errors.New("-radius and -wide-radius must be positive")
	case cfg.count < 1:
		return fmt.Errorf("-count %d: want at least 1", cfg.count)
	case cfg.mixUpdate < 0 || cfg.mixUpdate > 1:
		return fmt.Errorf("-mix-update %v: want 0..1", cfg.mixUpdate)
	case cfg.background < 0 || cfg.background > 1:
		return fmt.Errorf("-background %v: want 0..1", cfg.background)
	case cfg.loadBatch < 1 || cfg.loadPipeline < 1 || cfg.loadConns < 1:
		return errors.New("-load-batch, -load-pipeline and -load-conns must be at least 1")
	case cfg.loadConns > cfg.conns:
		return fmt.Errorf("-load-conns %d exceeds -c %d", cfg.loadConns, cfg.conns)
	case cfg.timeout <= 0:
		return errors.New("-timeout must be positive")
	}
	return nil
}
