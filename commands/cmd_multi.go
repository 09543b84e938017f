package commands

import "time"

func init() {
	register(
		&command{name: "multi", arity: 1, flags: []string{"noscript", "loading", "stale", "fast", "allow_busy"}, handler: multi},
		// EXEC runs its queue with the keyspace held alone, which is what
		// makes a transaction atomic.
		&command{name: "exec", arity: 1, flags: []string{"noscript", "loading", "stale", "skip_slowlog"}, handler: execCmd, exclusive: true, prepare: execPrepare},
		&command{name: "discard", arity: 1, flags: []string{"noscript", "loading", "stale", "fast", "allow_busy"}, handler: discard},
	)
}

// queued is a command waiting for EXEC, already checked for existence and
// arity.
type queued struct {
	cmd  *command
	args [][]byte
}

// isMultiControl reports whether a command runs at once inside MULTI
// instead of being queued, as Redis's processCommand decides.
func isMultiControl(name string) bool {
	switch name {
	case "exec", "discard", "multi", "quit", "reset":
		return true
	}
	return false
}

// queue answers a command sent inside MULTI: +QUEUED, or the error Redis
// gives before running it, which dooms the transaction.
func (e *Engine) queue(c *Client, cmd *command, args [][]byte) {
	if err := e.check(c, cmd, args); err != "" {
		c.multiFailed = true
		c.W.Error(err)
		return
	}
	// The reader reuses its buffers for the next command: keep a copy.
	kept := make([][]byte, len(args))
	for i, a := range args {
		kept[i] = append([]byte(nil), a...)
	}
	c.info.Lock() // CLIENT LIST reads the queue's length
	*c.multi = append(*c.multi, queued{cmd: cmd, args: kept})
	c.info.Unlock()
	c.W.Simple("QUEUED")
}

// multi: MULTI
func multi(e *Engine, c *Client, args [][]byte) {
	if c.multi != nil {
		c.W.Error("ERR MULTI calls can not be nested")
		return
	}
	c.info.Lock()
	c.multi = new([]queued)
	c.info.Unlock()
	c.multiFailed = false
	c.W.OK()
}

// discard: DISCARD
func discard(e *Engine, c *Client, args [][]byte) {
	if c.multi == nil {
		c.W.Error("ERR DISCARD without MULTI")
		return
	}
	c.endMulti()
	c.W.OK()
}

func (c *Client) endMulti() {
	c.info.Lock()
	c.multi = nil
	c.info.Unlock()
	c.multiFailed = false
}

// execPrepare runs the prepare steps of the queued commands before EXEC
// takes the keyspace, so that a queued CONFIG SET regions reads its file
// with nobody waiting, as it would outside MULTI.
func execPrepare(e *Engine, c *Client, args [][]byte) {
	if c.multi == nil || c.multiFailed {
		return
	}
	var out []any
	for i, qc := range *c.multi {
		if qc.cmd.prepare == nil {
			continue
		}
		if out == nil {
			out = make([]any, len(*c.multi))
		}
		c.prepared = nil
		qc.cmd.prepare(e, c, qc.args)
		out[i] = c.prepared
	}
	c.prepared = out
}

// execCmd: EXEC. The caller holds the keyspace alone (exec is exclusive),
// or, in cluster mode, the stripes of the queue's names (exec_spread.go).
func execCmd(e *Engine, c *Client, args [][]byte) {
	if c.multi == nil {
		c.W.Error("ERR EXEC without MULTI")
		return
	}
	q, failed := *c.multi, c.multiFailed
	prepared, _ := c.prepared.([]any)
	c.endMulti()
	if failed {
		c.W.Error("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	c.W.Array(len(q))
	for i, qc := range q {
		st := e.stat(qc.cmd.fullName())
		begin := time.Now()
		before := len(c.W.Buf)
		c.prepared = nil
		if i < len(prepared) {
			c.prepared = prepared[i]
		}
		if c.held.spread {
			e.runQueued(c, qc.cmd, qc.args) // exec_spread.go
		} else {
			e.runLocked(c, qc.cmd, qc.args)
		}
		st.add(c.slot, time.Since(begin).Microseconds(), len(c.W.Buf) > before && c.W.Buf[before] == '-')
	}
}
