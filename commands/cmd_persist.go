package commands

import "errors"

func init() {
	admin := []string{"admin", "noscript", "no_async_loading"}
	register(
		// Exclusive: SAVE writes one instant of the keyspace, BGSAVE copies it.
		&command{name: "save", arity: 1, flags: append(admin, "no_multi"), handler: save, exclusive: true},
		&command{name: "bgsave", arity: -1, flags: admin, handler: bgsave, exclusive: true},
		&command{name: "lastsave", arity: 1, flags: []string{"loading", "stale", "fast"}, handler: lastsave, inert: true},
	)
}

// save: SAVE
func save(e *Engine, c *Client, args [][]byte) {
	if err := e.saveLocked(); err != nil {
		e.logSaveError("SAVE", err)
		c.W.Error("ERR " + err.Error())
		return
	}
	c.W.OK()
}

// bgsave: BGSAVE [SCHEDULE]
func bgsave(e *Engine, c *Client, args [][]byte) {
	schedule := false
	if len(args) > 1 {
		if len(args) > 2 || !optIs(args[1], "schedule") {
			c.W.Error(errSyntax)
			return
		}
		schedule = true
	}
	err := e.bgSaveLocked(func(err error) {
		if err != nil {
			e.logSaveError("BGSAVE", err)
		}
	})
	switch {
	case err == nil:
		c.W.Simple("Background saving started")
	case errors.Is(err, ErrSaveInProgress) && schedule:
		e.persist.mu.Lock()
		e.persist.scheduled = true
		e.persist.mu.Unlock()
		c.W.Simple("Background saving scheduled")
	default:
		c.W.Error("ERR " + err.Error())
	}
}

// lastsave: LASTSAVE
func lastsave(e *Engine, c *Client, args [][]byte) {
	c.W.Int(e.LastSave().Unix())
}

// logSaveError reports a failed save where an operator looks: the reply
// goes to one client, the log to whoever runs the server.
func (e *Engine) logSaveError(what string, err error) {
	if f := e.persist.onError; f != nil {
		f(what, err)
	}
}

// OnSaveError sets what a failed SAVE or BGSAVE reports to (a logger).
func (e *Engine) OnSaveError(f func(what string, err error)) { e.persist.onError = f }
