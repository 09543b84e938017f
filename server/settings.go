package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"geoshard/commands"
)

// config exposes the directives to CONFIG GET and, where they can change
// live, CONFIG SET.
func (s *Server) config() *commands.Config {
	c := commands.NewConfig()
	c.SetRequirePass(s.opts.RequirePass)
	fixed := func(name, value string) {
		c.Add(&commands.Setting{Name: name, Get: func() string { return value }})
	}
	fixed("port", strconv.Itoa(s.opts.Port))
	fixed("bind", strings.Join(s.opts.Bind, " "))
	fixed("regions", s.opts.Regions)
	fixed("databases", strconv.Itoa(commands.Databases))
	fixed("save", "")
	fixed("appendonly", "no")
	fixed("loglevel", s.opts.LogLevel)
	c.Add(&commands.Setting{
		Name: "position-ttl",
		Get:  func() string { return seconds(s.router.PositionTTL()) },
		Set: func(v string) error {
			d, err := parseSeconds(v)
			if err == nil {
				s.router.SetPositionTTL(d)
			}
			return err
		},
	})
	c.Add(&commands.Setting{
		Name: "fanout-timeout",
		Get:  func() string { return strconv.FormatInt(s.router.FanoutTimeout().Milliseconds(), 10) },
		Set: func(v string) error {
			ms, err := parseInt(v, 1, 60000)
			if err == nil {
				s.router.SetFanoutTimeout(time.Duration(ms) * time.Millisecond)
			}
			return err
		},
	})
	c.Add(&commands.Setting{
		Name: "proto-max-bulk-len",
		Get:  func() string { return strconv.FormatInt(s.maxBulkLen.Load(), 10) },
		Set: func(v string) error {
			n, err := ParseMemory(v)
			if err == nil && n < 1<<20 {
				err = fmt.Errorf("must be at least 1mb")
			}
			if err == nil {
				s.maxBulkLen.Store(n)
			}
			return err
		},
	})
	c.Add(&commands.Setting{
		Name: "maxclients",
		Get:  func() string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		Set: func(v string) error {
			n, err := parseInt(v, 1, 1<<20)
			if err == nil {
				s.maxClients.Store(int64(n))
			}
			return err
		},
	})
	c.Add(&commands.Setting{
		Name: "timeout",
		Get:  func() string { return seconds(time.Duration(s.timeout.Load())) },
		Set: func(v string) error {
			d, err := parseSeconds(v)
			if err == nil {
				s.timeout.Store(int64(d))
			}
			return err
		},
	})
	c.Add(&commands.Setting{
		Name: "requirepass",
		Get:  c.RequirePass,
		Set:  func(v string) error { c.SetRequirePass(v); return nil },
	})
	return c
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
