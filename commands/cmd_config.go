package commands

import "strings"

func init() {
	admin := []string{"admin", "noscript", "loading", "stale"}
	register(
		&command{name: "config|get", arity: -3, flags: admin, handler: configGet},
		// Exclusive: a region map reload swaps the router under it.
		&command{name: "config|set", arity: -4, flags: admin, handler: configSet, exclusive: true, prepare: configPrepare},
		&command{name: "config|resetstat", arity: 2, flags: admin, handler: configResetStat},
		// Unlocked: it reads and writes the config file, nothing of the keyspace.
		&command{name: "config|rewrite", arity: 2, flags: admin, handler: configRewrite, unlocked: true},
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
		case s.Set == nil && s.Prepare == nil:
			errArg, errStr = name, "can't set immutable config"
		case s.Protected && !e.config.protectedConfigsAllowed(c):
			errArg, errStr = name, "can't set protected config"
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
	ready, _ := c.prepared.(map[*Setting]prepared)
	// Settings with a prepare step go last: they are the costly ones to
	// put back, and most often the ones that fail.
	order := make([]int, 0, len(settings))
	for pass := range 2 {
		for i, s := range settings {
			if (s.Prepare != nil) == (pass == 1) {
				order = append(order, i)
			}
		}
	}
	old := make([]string, len(settings))
	for i, s := range settings {
		old[i] = s.Get()
	}
	for k, i := range order {
		s := settings[i]
		err := applySetting(s, string(pairs[2*i+1]), ready)
		if err != nil {
			for j := k - 1; j >= 0; j-- {
				settings[order[j]].change(old[order[j]])
			}
			c.W.Error("ERR CONFIG SET failed (possibly related to argument '" + s.Name + "') - " + err.Error())
			return
		}
	}
	c.W.OK()
}

// prepared is the result of a setting's prepare step for one value.
type prepared struct {
	value string
	apply func() error
	err   error
}

// configPrepare runs, before the keyspace lock, the prepare steps of the
// settings CONFIG SET names (reading a region map), so that only applying
// the result holds other commands back.
func configPrepare(e *Engine, c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		return
	}
	var out map[*Setting]prepared
	for i := 2; i+1 < len(args); i += 2 {
		s, ok := e.config.Lookup(string(args[i]))
		if !ok || s.Prepare == nil || (s.Protected && !e.config.protectedConfigsAllowed(c)) {
			continue
		}
		if out == nil {
			out = make(map[*Setting]prepared)
		}
		v := string(args[i+1])
		apply, err := s.Prepare(v)
		out[s] = prepared{v, apply, err}
	}
	if out != nil {
		c.prepared = out
	}
}

// applySetting sets one value, with its prepared result if there is one.
func applySetting(s *Setting, value string, ready map[*Setting]prepared) error {
	if p, ok := ready[s]; ok && p.value == value {
		if p.err != nil {
			return p.err
		}
		return p.apply()
	}
	return s.change(value)
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
	e.counters.statGen.Add(1) // after the deletes: clients drop their cached stats
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
