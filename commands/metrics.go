package commands

import "time"

// CommandObserver is told, after each command, its full name ("geosearch",
// "config|get") and how long it ran. The server feeds /metrics with it.
// It runs on the client's goroutine, so it must be quick.
type CommandObserver func(name string, d time.Duration)

// ObserveCommands makes the engine report every command it runs to f.
func (c *Config) ObserveCommands(f CommandObserver) { c.hooks.observe.Store(&f) }

// observe reports a finished command to the observer, if any.
func (e *Engine) observe(name string, took time.Duration) {
	if f := e.config.hooks.observe.Load(); f != nil {
		(*f)(name, took)
	}
}

// CountRejected counts a connection the server refused (maxclients,
// protected mode), as INFO's rejected_connections does.
func (e *Engine) CountRejected() { e.counters.rejected.Add(1) }

// CommandsProcessed returns INFO's total_commands_processed.
func (e *Engine) CommandsProcessed() int64 { return e.counters.commands.Load() }

// ConnectionsReceived returns INFO's total_connections_received.
func (e *Engine) ConnectionsReceived() int64 { return e.counters.connections.Load() }

// RejectedConnections returns INFO's rejected_connections.
func (e *Engine) RejectedConnections() int64 { return e.counters.rejected.Load() }
