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
	live := func(name string, get func() string, set func(string) error) {
		c.Add(&commands.Setting{Name: name, Get: get, Set: set})
	}
	live("position-ttl",
		func() string { return seconds(s.Router().PositionTTL()) },
		func(v string) error {
			d, err := parseSeconds(v)
			if err == nil {
				s.Router().SetPositionTTL(d)
			}
			return err
		})
	live("fanout-timeout",
		func() string { return strconv.FormatInt(s.Router().FanoutTimeout().Milliseconds(), 10) },
		func(v string) error {
			ms, err := parseInt(v, 1, 60000)
			if err == nil {
				s.Router().SetFanoutTimeout(time.Duration(ms) * time.Millisecond)
			}
			return err
		})
	c.Add(&commands.Setting{Name: "regions", Get: s.regionsPath, Prepare: s.prepareRegions})
	live("proto-max-bulk-len",
		func() string { return strconv.FormatInt(s.maxBulkLen.Load(), 10) },
		func(v string) error {
			n, err := parseBulkLen(v)
			if err == nil {
				s.maxBulkLen.Store(n)
			}
			return err
		})
	live("maxclients",
		func() string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		func(v string) error {
			n, err := parseInt(v, 1, 1<<20)
			if err == nil {
				s.maxClients.Store(int64(n))
			}
			return err
		})
	live("timeout",
		func() string { return seconds(time.Duration(s.timeout.Load())) },
		func(v string) error {
			d, err := parseSeconds(v)
			if err == nil {
				s.timeout.Store(int64(d))
			}
			return err
		})
	live("requirepass", c.RequirePass, func(v string) error { c.SetRequirePass(v); return nil })
	live("protected-mode",
		func() string { return yesNo(s.protected.Load()) },
		func(v string) error {
			b, err := parseYesNo(v)
			if err == nil {
				s.protected.Store(b)
			}
			return err
		})
	live("maxmemory",
		func() string { return strconv.FormatInt(c.MaxMemory(), 10) },
		func(v string) error {
			n, err := ParseMemory(v)
			if err == nil {
				c.SetMaxMemory(n)
			}
			return err
		})
	live("client-output-buffer-limit",
		func() string { return s.outputLimit.Load().String() },
		func(v string) error {
			words, err := splitLine(v)
			if err != nil {
				return err
			}
			l, err := parseOutputLimit(*s.outputLimit.Load(), words)
			if err == nil {
				s.outputLimit.Store(&l)
			}
			return err
		})
	s.snapshotSettings(c)
	return c
}
