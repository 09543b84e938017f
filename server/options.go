// Package server runs geoshard's network side: configuration, listening,
// client connections and the process lifecycle.
package server

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	GCMinPercent                               int   // the least GOGC PaceGC lowers it to while little is allocated
	GCTrim                                     bool  // soft memory limit just above the collection goal (PaceGC)
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

// DefaultGCPercent is gc-percent's default. The index holds no pointer
// per member (names in byte chunks, slots and tree entries of plain
// numbers), so a collection marks little however many drivers there are,
// and a low percent keeps RSS near the live index for little CPU. At a
// million drivers, side by side (docs/BENCHMARKS.md): 20 against 10 costs
// 1.09x the RSS and 0.83x the CPU per 5 km search, which keeps wide
// searches well above 1.5x Redis's rate. PaceGC keeps a small heap from
// collecting at that pace.
const DefaultGCPercent = 20

// DefaultGCMinPercent is gc-min-percent's default: while the server
// allocates little (moving drivers: about 20 B an update), PaceGC lets
// the heap grow only 2 % past its live data, and RSS follows the heap's
// high-water mark between collections.
const DefaultGCMinPercent = 2

// GCPace is what PaceGC needs of the options.
func (o Options) GCPace() GCPace {
	return GCPace{Percent: o.GCPercent, MinPercent: o.GCMinPercent, TrimLimit: o.GCTrim}
}

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
		GCMinPercent:           DefaultGCMinPercent,
		GCTrim:                 true,
		// Unlike Redis's "normal 0 0 0": a client that stops reading is
		// cut off rather than left holding a goroutine and its replies.
		OutputLimit:    OutputLimit{Hard: 256 << 20, Soft: 64 << 20, SoftTime: 60 * time.Second},
		TLSAuthClients: "yes",
		Cluster:        clusterDefaults(),
		MapTiles:       mapview.DefaultTiles,
	}
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
