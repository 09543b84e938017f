package commands

import "strings"

func init() {
	admin := []string{"admin", "noscript", "loading", "stale"}
	register(
		&command{name: "config|get", arity: -3, flags: admin, handler: configGet},
		// Exclusive: a region map reload swaps the router under it.
		&command{name: "config|set", arity: -4, flags: admin, handler: configSet, exclusive: true},
		&command{name: "config|resetstat", arity: 2, flags: admin, handler: configResetStat},
		&command{name: "config|rewrite", arity: 2, flags: admin, handler: configRewrite},
	)
}

// configGet: CONFIG GET parameter [parameter ...]
func configGet(e *Engine, c *Client, args [][]byte) {
	type match struct {
		name string // as the reply spells it
		s    *Setting
	}
	seen := map[*Setting]bool{}
	var found []match
	for _, a := range args[2:] {
		pattern := string(a)
		if !strings.ContainsAny(pattern, "*?[") {
			// Redis answers an exact name with the name as it was asked.
			if s, ok := e.config.Lookup(pattern); ok && !seen[s] {
				seen[s] = true
				found = append(found, match{pattern, s})
			}
			continue
		}
		for _, s := range e.config.Match(pattern) {
			if !seen[s] {
				seen[s] = true
				found = append(found, match{s.Name, s})
			}
		}
	}
	c.W.Map(len(found))
	for _, m := range found {
		c.W.BulkString(m.name)
		c.W.BulkString(m.s.Get())
	}
}

// configSet: CONFIG SET parameter value [parameter value ...], all or
// nothing: every name is checked first, and a value that fails puts back
// those already set.
func configSet(e *Engine, c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		c.W.Error(errSyntax)
		return
	}
	pairs := args[2:]
	settings := make([]*Setting, 0, len(pairs)/2)
	unknown, errArg, errStr := "", "", ""
	for i := 0; i < len(pairs); i += 2 {
		name := string(pairs[i])
		s, ok := e.config.Lookup(name)
		switch {
		case unknown != "" || errStr != "":
		case !ok:
			unknown = name
		case s.Set == nil:
			errArg, errStr = name, "can't set immutable config"
		default:
			for _, prev := range settings {
				if prev == s {
					errArg, errStr = name, "duplicate parameter"
				}
			}
		}
		settings = append(settings, s)
	}
	switch {
	case unknown != "":
		c.W.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
		return
	case errStr != "":
		c.W.Error("ERR CONFIG SET failed (possibly related to argument '" + errArg + "') - " + errStr)
		return
	}
	old := make([]string, len(settings))
	for i, s := range settings {
		old[i] = s.Get()
	}
	for i, s := range settings {
		if err := s.Set(string(pairs[2*i+1])); err != nil {
			for j := i - 1; j >= 0; j-- {
				settings[j].Set(old[j])
			}
			c.W.Error("ERR CONFIG SET failed (possibly related to argument '" + s.Name + "') - " + err.Error())
			return
		}
	}
	c.W.OK()
}

// configResetStat: CONFIG RESETSTAT
func configResetStat(e *Engine, c *Client, args [][]byte) {
	e.counters.commands.Store(0)
	e.counters.connections.Store(0)
	e.counters.rejected.Store(0)
	e.counters.perCommand.Range(func(k, _ any) bool {
		e.counters.perCommand.Delete(k)
		return true
	})
	c.W.OK()
}

// configRewrite: CONFIG REWRITE writes the current settings into the
// config file the server started with, if any.
func configRewrite(e *Engine, c *Client, args [][]byte) {
	f := e.config.hooks.rewrite.Load()
	if f == nil {
		c.W.Error("ERR The server is running without a config file")
		return
	}
	if err := (*f)(); err != nil {
		c.W.Error("ERR Rewriting config file: " + err.Error())
		return
	}
	c.W.OK()
}
