package commands

// EXEC in cluster mode. EXEC runs its queue with the keyspace held alone,
// and held it across the queued commands' calls to other nodes too: with
// a peer SIGSTOPped, a transaction of one GEOADD stopped every command
// through the node, PING included, for the call's deadline
// (TestClusterAloneWritesHungNode). redis-py's pipelines are
// transactions unless told otherwise, so a fleet pinging in batches sends
// exactly that.
//
// When every queued command names keys, EXEC now takes its slot of
// writing shared and the stripes of all those names alone (keylocks.go),
// and runs each queued command as it runs outside MULTI: shared, letting
// the keyspace go before its remote calls, or alone, letting it go across
// them (Engine.outside). No write of the transaction's names, and no
// FLUSHALL, EXEC or CONFIG SET, runs through this node between its
// commands, as before; commands on other names do, and a read of its
// names may see it half done, as a read through another node always
// could. Commands that touch no key and no database (PING, ECHO, TIME:
// command.inert) run in place among them; a PING in the queue held the
// keyspace alone across the GEOADD's calls, PING p99 4.6 s through a with
// c stopped. A queue with another command that names no key (SELECT,
// FLUSHALL, CONFIG SET, DBSIZE) runs as before, everything with the
// keyspace alone.

// spreads reports whether cmd is an EXEC of the client's that runs spread.
func (e *Engine) spreads(c *Client, cmd *command) bool {
	if cmd.name != "exec" || !e.Router().Clustered() || c.multi == nil || c.multiFailed || len(*c.multi) == 0 {
		return false
	}
	for _, qc := range *c.multi {
		if qc.cmd.firstKey <= 0 && !qc.cmd.inert {
			return false
		}
	}
	return true
}

// runSpread runs EXEC spread: the caller checked spreads and holds no
// lock.
func (e *Engine) runSpread(c *Client, cmd *command, args [][]byte, before int) {
	stripes := c.held.buf[:0]
	for _, qc := range *c.multi {
		stripes = keyStripes(stripes, c.db, qc.cmd, qc.args)
	}
	e.lockKeys(c, stripes, false) // keylocks.go
	defer e.giveKeys(c)
	c.held.spread = true
	e.guarded(c, cmd, args, before)
}

// runQueued runs a command of a spread EXEC as Engine.run runs it outside
// MULTI, under the stripes EXEC holds.
func (e *Engine) runQueued(c *Client, cmd *command, args [][]byte) {
	if !cmd.exclusive && e.tryShared(c, cmd, args, len(c.W.Buf)) {
		e.counters.commands.Add(c.slot, 1)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c.held.apart = true
	defer func() { c.held.apart = false }()
	e.runLocked(c, cmd, args)
}
