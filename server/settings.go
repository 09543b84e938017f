package server

import (
	"strconv"
	"time"

	"geoshard/commands"
)

// config exposes the directives to CONFIG GET and, where they can change
// live, CONFIG SET. Every value reads as the config file spells it, so
// CONFIG REWRITE can write Get's result back.
func (s *Server) config() *commands.Config {
	c := commands.NewConfig()
	c.SetRequirePass(s.opts.RequirePass)
	c.SetMaxMemory(s.opts.MaxMemory)
	c.SetProtectedActions(s.opts.EnableProtectedConfigs, s.opts.EnableDebugCommand)
	for _, d := range directives {
		if d.secret {
			continue
		}
		c.Add(&commands.Setting{Name: d.name, Get: func() string { return d.get(&s.opts) }})
	}
	fixed := func(name, value string) {
		c.Add(&commands.Setting{Name: name, Get: func() string { return value }})
	}
	fixed("databases", strconv.Itoa(commands.Databases))
	fixed("appendonly", "no")
	fixed("maxmemory-policy", "noeviction")
	fixed("enable-module-command", "no") // there are no modules to load
	c.Add(&commands.Setting{Name: "regions", Get: s.regionsPath, Prepare: s.prepareRegions})
	c.Add(&commands.Setting{Name: "requirepass", Get: c.RequirePass, Set: func(v string) error { c.SetRequirePass(v); return nil }})
	r := s.Router
	live(c, "position-ttl", func() string { return seconds(r().PositionTTL()) },
		parseSeconds, func(d time.Duration) { r().SetPositionTTL(d) })
	live(c, "fanout-timeout", func() string { return strconv.FormatInt(r().FanoutTimeout().Milliseconds(), 10) },
		func(v string) (int, error) { return parseInt(v, 1, 60000) },
		func(ms int) { r().SetFanoutTimeout(time.Duration(ms) * time.Millisecond) })
	live(c, "proto-max-bulk-len", func() string { return strconv.FormatInt(s.maxBulkLen.Load(), 10) },
		parseBulkLen, s.maxBulkLen.Store)
	live(c, "maxclients", func() string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		func(v string) (int, error) { return parseInt(v, 1, 1<<20) },
		func(n int) { s.maxClients.Store(int64(n)) })
	live(c, "timeout", func() string { return seconds(time.Duration(s.timeout.Load())) },
		parseSeconds, func(d time.Duration) { s.timeout.Store(int64(d)) })
	live(c, "protected-mode", func() string { return yesNo(s.protected.Load()) },
		parseYesNo, s.protected.Store)
	live(c, "maxmemory", func() string { return strconv.FormatInt(c.MaxMemory(), 10) },
		ParseMemory, c.SetMaxMemory)
	live(c, "client-output-buffer-limit", func() string { return s.outputLimit.Load().String() },
		func(v string) (OutputLimit, error) {
			words, err := splitLine(v)
			if err != nil {
				return OutputLimit{}, err
			}
			return parseOutputLimit(*s.outputLimit.Load(), words)
		},
		func(l OutputLimit) { s.outputLimit.Store(&l) })
	s.snapshotSettings(c)
	return c
}

// live adds a directive that CONFIG SET changes in place: parse reads a
// value as a config file spells it, and apply puts it in force only if it
// parsed, so a bad value changes nothing.
func live[T any](c *commands.Config, name string, get func() string, parse func(string) (T, error), apply func(T)) {
	c.Add(&commands.Setting{Name: name, Get: get, Set: func(v string) error {
		x, err := parse(v)
		if err == nil {
			apply(x)
		}
		return err
	}})
}
