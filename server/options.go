// Package server runs geoshard's network side: configuration, listening,
// client connections and the process lifecycle.
package server

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options are the directives the server starts with.
type Options struct {
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
	}
}

// ParseArgs reads the command line as redis-server does:
// [config-file] [--directive value ...], later settings winning.
func ParseArgs(args []string) (Options, error) {
	o := Defaults()
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		if err := o.loadFile(args[0]); err != nil {
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
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		words := strings.Fields(line)
		if err := o.Set(words[0], unquote(words[1:])); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

func unquote(ws []string) []string {
	for i, w := range ws {
		if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
			ws[i] = w[1 : len(w)-1]
		}
	}
	return ws
}

// Set applies one directive.
func (o *Options) Set(name string, vals []string) error {
	name = strings.ToLower(name)
	one := func() (string, error) {
		if len(vals) != 1 {
			return "", fmt.Errorf("directive %s: want one value, got %d", name, len(vals))
		}
		return vals[0], nil
	}
	v, err := "", error(nil)
	if name != "bind" {
		if v, err = one(); err != nil {
			return err
		}
	}
	switch name {
	case "port":
		o.Port, err = parseInt(v, 0, 65535)
	case "bind":
		if len(vals) == 0 {
			return fmt.Errorf("directive bind: want at least one address")
		}
		o.Bind = vals
	case "regions":
		o.Regions = v
	case "position-ttl":
		o.PositionTTL, err = parseSeconds(v)
	case "fanout-timeout":
		var ms int
		ms, err = parseInt(v, 1, 60000)
		o.FanoutTimeout = time.Duration(ms) * time.Millisecond
	case "proto-max-bulk-len":
		var n int64
		n, err = ParseMemory(v)
		if err == nil && n < 1<<20 {
			err = fmt.Errorf("must be at least 1mb")
		}
		o.ProtoMaxBulkLen = n
	case "requirepass":
		o.RequirePass = v
	case "maxclients":
		o.MaxClients, err = parseInt(v, 1, 1<<20)
	case "timeout":
		o.Timeout, err = parseSeconds(v)
	case "loglevel":
		switch v {
		case "debug", "verbose", "notice", "warning":
			o.LogLevel = v
		default:
			err = fmt.Errorf("want debug, verbose, notice or warning")
		}
	case "logformat":
		if v != "text" && v != "json" {
			err = fmt.Errorf("want text or json")
		}
		o.LogFormat = v
	default:
		return fmt.Errorf("unknown directive %q", name)
	}
	if err != nil {
		return fmt.Errorf("directive %s %q: %w", name, strings.Join(vals, " "), err)
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
	if err != nil || f < 0 || f > 1e9 {
		return 0, fmt.Errorf("want a number of seconds >= 0")
	}
	return time.Duration(f * float64(time.Second)), nil
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
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 512mb")
	}
	return n * mul, nil
}
