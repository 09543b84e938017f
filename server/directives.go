package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"geoshard/mapview"
)

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
	intDirective("gc-min-percent", 1, 1000, func(o *Options) *int { return &o.GCMinPercent }),
	yesNoDirective("gc-trim", func(o *Options) *bool { return &o.GCTrim }),
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
