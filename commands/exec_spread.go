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
// could. A queue with a command that names no key (SELECT, FLUSHALL,
// CONFIG SET, PING) runs as before, everything with the keyspace alone.

// spreads reports whether the client's EXEC runs spread.
func (e *Engine) spreads(c *Client) bool {
	if !e.Router().Clustered() || c.multi == nil || c.multiFailed || len(*c.multi) == 0 {
		return false
	}
	for _, qc := range *c.multi {
		if qc.cmd.firstKey <= 0 {
			return false
		}
	}
	return true
}

// runSpread runs EXEC spread: the caller checked spreads and holds no
// lock.
func (e *Engine) runSpread(c *Client, cmd *command, args [][]byte, before int) {
	h := &c.held
	h.stripes = h.buf[:0]
	for _, qc := range *c.multi {
		h.stripes = keyStripes(h.stripes, c.db, qc.cmd, qc.args)
	}
	h.writing, h.slot = true, true
	e.keys.writing.RLockSlot(c.slot)
	for _, s := range h.stripes {
		e.keys.stripe[s].Lock()
	}
	defer e.giveKeys(c)
	h.spread = true
	e.guarded(c, cmd, args, before)
}

// runQueued runs a command of a spread EXEC as Engine.run runs it outside
// MULTI, under the stripes EXEC holds.
func (e *Engine) runQueued(c *Client, cmd *command, args [][]byte) {
	if !cmd.exclusive {
		e.mu.RLockSlot(c.slot)
		c.shared = true
		if !e.anyExpired(c, cmd, args) && (cmd.aloneIf == nil || !cmd.aloneIf(e, c, args)) {
			e.counters.commands.Add(c.slot, 1)
			e.guarded(c, cmd, args, len(c.W.Buf))
			if cmd.write && e.kinds.pending.Load() != 0 { // kindlookup.go
				e.kinds.wrote(c.db, cmd, args)
			}
			e.letGo(c)
			return
		}
		e.letGo(c)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c.held.apart = true
	defer func() { c.held.apart = false }()
	e.runLocked(c, cmd, args)
}
