// Package server runs geoshard's network side: configuration, listening,
// client connections and the process lifecycle.
package server

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"geoshard/mapview"
	"geoshard/resp"
)

// Options are the directives the server starts with.
type Options struct {
	ConfigFile      string // absolute path of the file given first, "" for none
	Port            int
	Bind            []string
	Regions         string        // GeoJSON region map; "" for the embedded world map
	PositionTTL     time.Duration // 0: positions never expire
	FanoutTimeout   time.Duration
	ProtoMaxBulkLen int64
	RequirePass     string
	MaxClients      int
	Timeout         time.Duration // idle client timeout; 0: never
	LogLevel        string        // debug, verbose, notice, warning
	LogFormat       string        // text or json

	ProtectedMode bool
	// EnableProtectedConfigs and EnableDebugCommand are Redis 7.0's
	// enable-protected-configs and enable-debug-command: no, yes or local.
	EnableProtectedConfigs, EnableDebugCommand string
	MaxMemory                                  int64 // bytes of Go heap in use; 0: no limit
	GCPercent                                  int   // the Go collector's GOGC: heap growth over live data before a collection
	OutputLimit                                OutputLimit

	MetricsPort int    // HTTP port of /metrics; 0: off
	Pprof       bool   // serve /debug/pprof on the metrics port
	MapTiles    string // tile URL template of /map's base layer; "none": Natural Earth only

	TLSPort        int // 0: no TLS listener
	TLSCertFile    string
	TLSKeyFile     string
	TLSCACertFile  string
	TLSAuthClients string // yes, no or optional

	Snapshot SnapshotOptions // snapshot.go
	Cluster  ClusterOptions  // cluster.go
}

// OutputLimit is client-output-buffer-limit's "normal" class: a client
// whose unsent replies pass Hard bytes, or stay above Soft bytes for
// SoftTime, is disconnected. Zero turns a limit off.
type OutputLimit struct {
	Hard, Soft int64
	SoftTime   time.Duration
}

func (l OutputLimit) String() string {
	return fmt.Sprintf("normal %d %d %d", l.Hard, l.Soft, int64(l.SoftTime/time.Second))
}

// DefaultGCPercent is gc-percent's default: Go's own. Lower values keep
// RSS nearer the live index but make every collection-heavy command dearer:
// at a million drivers 25 cut RSS growth per driver from 254 B to 213 B
// after a load, and from 699 B to 313 B after wide searches, but cost 1.7x
// the CPU per 5 km search, which drops those below 1.5x Redis's rate
// (docs/BENCHMARKS.md).
const DefaultGCPercent = 100

// Defaults returns the options of a server started with no arguments.
func Defaults() Options {
	return Options{
		Port:            6379,
		Bind:            []string{"127.0.0.1"},
		FanoutTimeout:   50 * time.Millisecond,
		ProtoMaxBulkLen: 512 << 20,
		MaxClients:      10000,
		LogLevel:        "notice",
		LogFormat:       "text",
		ProtectedMode:   true,
		// As Redis 7.0: no client may move where files are written, or
		// run DEBUG, unless the operator says so.
		EnableProtectedConfigs: "no",
		EnableDebugCommand:     "no",
		GCPercent:              DefaultGCPercent,
		// Unlike Redis's "normal 0 0 0": a client that stops reading is
		// cut off rather than left holding a goroutine and its replies.
		OutputLimit:    OutputLimit{Hard: 256 << 20, Soft: 64 << 20, SoftTime: 60 * time.Second},
		TLSAuthClients: "yes",
		Cluster:        clusterDefaults(),
		MapTiles:       mapview.DefaultTiles,
	}
}

// directive is one configuration name: how to apply its words to Options
// and how to write the current value back the way a file spells it (CONFIG
// GET and CONFIG REWRITE use the latter).
type directive struct {
	name  string
	multi bool // takes several words (bind)
	// secret values (passwords) are neither shown by CONFIG GET nor
	// written by CONFIG REWRITE: they stay where the operator put them.
	secret bool
	set    func(o *Options, vals []string) error
	get    func(o *Options) string
}

func oneWord(f func(o *Options, v string) error) func(*Options, []string) error {
	return func(o *Options, vals []string) error {
		if len(vals) != 1 {
			return fmt.Errorf("want one value, got %d", len(vals))
		}
		return f(o, vals[0])
	}
}

func intDirective(name string, lo, hi int, field func(o *Options) *int) directive {
	return directive{name: name,
		set: oneWord(func(o *Options, v string) (err error) {
			*field(o), err = parseInt(v, lo, hi)
			return err
		}),
		get: func(o *Options) string { return strconv.Itoa(*field(o)) },
	}
}

func stringDirective(name string, field func(o *Options) *string) directive {
	return directive{name: name,
		set: oneWord(func(o *Options, v string) error { *field(o) = v; return nil }),
		get: func(o *Options) string { return *field(o) },
	}
}

func yesNoDirective(name string, field func(o *Options) *bool) directive {
	return directive{name: name,
		set: oneWord(func(o *Options, v string) (err error) {
			*field(o), err = parseYesNo(v)
			return err
		}),
		get: func(o *Options) string { return yesNo(*field(o)) },
	}
}

// allowDirective is one of Redis's "no, yes or local" switches.
func allowDirective(name string, field func(o *Options) *string) directive {
	return directive{name: name,
		set: oneWord(func(o *Options, v string) error {
			switch v = strings.ToLower(v); v {
			case "no", "yes", "local":
				*field(o) = v
				return nil
			}
			return fmt.Errorf("want no, yes or local")
		}),
		get: func(o *Options) string { return *field(o) },
	}
}

func secondsDirective(name string, field func(o *Options) *time.Duration) directive {
	return directive{name: name,
		set: oneWord(func(o *Options, v string) (err error) {
			*field(o), err = parseSeconds(v)
			return err
		}),
		get: func(o *Options) string { return seconds(*field(o)) },
	}
}

var directives = []directive{
	intDirective("port", 0, 65535, func(o *Options) *int { return &o.Port }),
	{name: "bind", multi: true,
		set: func(o *Options, vals []string) error {
			if len(vals) == 0 {
				return fmt.Errorf("want at least one address")
			}
			o.Bind = vals
			return nil
		},
		get: func(o *Options) string { return strings.Join(o.Bind, " ") }},
	stringDirective("regions", func(o *Options) *string { return &o.Regions }),
	secondsDirective("position-ttl", func(o *Options) *time.Duration { return &o.PositionTTL }),
	{name: "fanout-timeout",
		set: oneWord(func(o *Options, v string) error {
			ms, err := parseInt(v, 1, 60000)
			o.FanoutTimeout = time.Duration(ms) * time.Millisecond
			return err
		}),
		get: func(o *Options) string { return strconv.FormatInt(o.FanoutTimeout.Milliseconds(), 10) }},
	{name: "proto-max-bulk-len",
		set: oneWord(func(o *Options, v string) (err error) {
			o.ProtoMaxBulkLen, err = parseBulkLen(v)
			return err
		}),
		get: func(o *Options) string { return strconv.FormatInt(o.ProtoMaxBulkLen, 10) }},
	stringDirective("requirepass", func(o *Options) *string { return &o.RequirePass }),
	intDirective("maxclients", 1, 1<<20, func(o *Options) *int { return &o.MaxClients }),
	secondsDirective("timeout", func(o *Options) *time.Duration { return &o.Timeout }),
	{name: "loglevel",
		set: oneWord(func(o *Options, v string) error {
			switch v {
			case "debug", "verbose", "notice", "warning":
				o.LogLevel = v
				return nil
			}
			return fmt.Errorf("want debug, verbose, notice or warning")
		}),
		get: func(o *Options) string { return o.LogLevel }},
	{name: "logformat",
		set: oneWord(func(o *Options, v string) error {
			if v != "text" && v != "json" {
				return fmt.Errorf("want text or json")
			}
			o.LogFormat = v
			return nil
		}),
		get: func(o *Options) string { return o.LogFormat }},
	yesNoDirective("protected-mode", func(o *Options) *bool { return &o.ProtectedMode }),
	allowDirective("enable-protected-configs", func(o *Options) *string { return &o.EnableProtectedConfigs }),
	allowDirective("enable-debug-command", func(o *Options) *string { return &o.EnableDebugCommand }),
	{name: "maxmemory",
		set: oneWord(func(o *Options, v string) (err error) {
			o.MaxMemory, err = ParseMemory(v)
			return err
		}),
		get: func(o *Options) string { return strconv.FormatInt(o.MaxMemory, 10) }},
	intDirective("gc-percent", 1, 1000, func(o *Options) *int { return &o.GCPercent }),
	{name: "client-output-buffer-limit", multi: true,
		set: func(o *Options, vals []string) (err error) {
			o.OutputLimit, err = parseOutputLimit(o.OutputLimit, vals)
			return err
		},
		get: func(o *Options) string { return o.OutputLimit.String() }},
	intDirective("metrics-port", 0, 65535, func(o *Options) *int { return &o.MetricsPort }),
	yesNoDirective("pprof", func(o *Options) *bool { return &o.Pprof }),
	{name: "map-tiles",
		set: oneWord(func(o *Options, v string) error {
			if v != "none" && !mapview.ValidTiles(v) {
				return fmt.Errorf("want none or an http(s) URL template with {z}, {x} and {y}")
			}
			o.MapTiles = v
			return nil
		}),
		get: func(o *Options) string { return o.MapTiles }},
	intDirective("tls-port", 0, 65535, func(o *Options) *int { return &o.TLSPort }),
	stringDirective("tls-cert-file", func(o *Options) *string { return &o.TLSCertFile }),
	stringDirective("tls-key-file", func(o *Options) *string { return &o.TLSKeyFile }),
	stringDirective("tls-ca-cert-file", func(o *Options) *string { return &o.TLSCACertFile }),
	{name: "tls-auth-clients",
		set: oneWord(func(o *Options, v string) error {
			v = strings.ToLower(v)
			if v != "yes" && v != "no" && v != "optional" {
				return fmt.Errorf("want yes, no or optional")
			}
			o.TLSAuthClients = v
			return nil
		}),
		get: func(o *Options) string { return o.TLSAuthClients }},
}

func lookupDirective(name string) *directive {
	name = strings.ToLower(name)
	for i := range directives {
		if directives[i].name == name {
			return &directives[i]
		}
	}
	return nil
}

// ParseArgs reads the command line as redis-server does:
// [config-file] [--directive value ...], later settings winning.
func ParseArgs(args []string) (Options, error) {
	o := Defaults()
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		abs, err := filepath.Abs(args[0])
		if err != nil {
			return o, fmt.Errorf("config file %s: %w", args[0], err)
		}
		o.ConfigFile = abs
		if err := o.loadFile(abs); err != nil {
			return o, err
		}
		args = args[1:]
	}
	for len(args) > 0 {
		name, ok := strings.CutPrefix(args[0], "--")
		if !ok || name == "" {
			return o, fmt.Errorf("argument %q: expected --directive", args[0])
		}
		var vals []string
		args = args[1:]
		for len(args) > 0 && !strings.HasPrefix(args[0], "--") {
			vals = append(vals, args[0])
			args = args[1:]
		}
		if err := o.Set(name, vals); err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o *Options) loadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		words, err := splitLine(sc.Text())
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if len(words) == 0 {
			continue
		}
		if err := o.Set(words[0], words[1:]); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}

// splitLine splits a config line into words as Redis's config loader
// does: blank lines and lines starting with # say nothing, the rest goes
// through the same sdssplitargs as an inline command.
func splitLine(line string) ([]string, error) {
	line = strings.Trim(line, " \t\r\n")
	if line == "" || line[0] == '#' {
		return nil, nil
	}
	args, ok := resp.SplitArgs([]byte(line))
	if !ok {
		return nil, errors.New("unbalanced quotes in configuration line")
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = string(a)
	}
	return words, nil
}

// quoteWord writes a value so that splitLine reads it back unchanged.
func quoteWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n\"'\\#") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Set applies one directive.
func (o *Options) Set(name string, vals []string) error {
	d := lookupDirective(name)
	if d == nil {
		return fmt.Errorf("unknown directive %q", name)
	}
	if err := d.set(o, vals); err != nil {
		return fmt.Errorf("directive %s %q: %w", d.name, strings.Join(vals, " "), err)
	}
	return nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want an integer from %d to %d", lo, hi)
	}
	return n, nil
}

func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	// NaN passes no comparison, and a positive value under a millisecond
	// would become 0, which means "never": both are refused.
	if err != nil || !(f == 0 || (f >= 0.001 && f <= 1e9)) {
		return 0, fmt.Errorf("want 0 or 0.001 to 1000000000 seconds")
	}
	return time.Duration(f * float64(time.Second)), nil
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func parseYesNo(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("want yes or no")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func parseBulkLen(v string) (int64, error) {
	n, err := ParseMemory(v)
	if err == nil && n < 1<<20 {
		err = fmt.Errorf("must be at least 1mb")
	}
	return n, err
}

// parseOutputLimit reads "class hard soft seconds" groups. Only the normal
// class applies here; replica and pubsub groups are accepted, as Redis
// config files carry them, and ignored.
func parseOutputLimit(cur OutputLimit, vals []string) (OutputLimit, error) {
	if len(vals) == 0 || len(vals)%4 != 0 {
		return cur, fmt.Errorf("want groups of: class hard-limit soft-limit soft-seconds")
	}
	for i := 0; i < len(vals); i += 4 {
		class := strings.ToLower(vals[i])
		if class != "normal" && class != "replica" && class != "slave" && class != "pubsub" {
			return cur, fmt.Errorf("unknown client class %q", vals[i])
		}
		hard, err1 := ParseMemory(vals[i+1])
		soft, err2 := ParseMemory(vals[i+2])
		secs, err3 := strconv.ParseInt(vals[i+3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || secs < 0 || secs > 1e9 {
			return cur, fmt.Errorf("want sizes and a whole number of seconds")
		}
		if class == "normal" {
			cur = OutputLimit{Hard: hard, Soft: soft, SoftTime: time.Duration(secs) * time.Second}
		}
	}
	return cur, nil
}

// ParseMemory reads a size as redis.conf writes it: 1024, 1k, 1kb, 5mb, 1gb.
func ParseMemory(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}}
	ls := strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(ls, u.suffix) {
			ls, mul = strings.TrimSuffix(ls, u.suffix), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("want a size such as 512mb")
	}
	return n * mul, nil
}
