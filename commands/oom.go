package commands

import (
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"time"
)

// errOOM is Redis's reply to a command that may grow memory while used
// memory is over maxmemory (there is no eviction: policy noeviction).
const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// memoryRefresh is how stale the used-memory figure may be: reading it
// costs microseconds, too much for every command.
const memoryRefresh = 100 * time.Millisecond

// heapMetric is the Go heap held by objects, live or not yet swept: what
// the process really holds for data, the figure maxmemory limits.
const heapMetric = "/memory/classes/heap/objects:bytes"

// memoryLimit is maxmemory and a cached reading of the memory it limits.
type memoryLimit struct {
	max        atomic.Int64
	used       atomic.Int64
	readAt     atomic.Int64 // UnixNano of the last reading
	refreshing atomic.Bool
}

// SetMaxMemory sets maxmemory in bytes; 0 turns the limit off.
func (c *Config) SetMaxMemory(n int64) { c.memory.max.Store(max(n, 0)) }

// MaxMemory returns maxmemory in bytes, 0 for no limit.
func (c *Config) MaxMemory() int64 { return c.memory.max.Load() }

// UsedMemory returns the Go heap in use, read at most memoryRefresh ago.
func (c *Config) UsedMemory() int64 {
	m := &c.memory
	now := time.Now().UnixNano()
	if now-m.readAt.Load() >= int64(memoryRefresh) && m.refreshing.CompareAndSwap(false, true) {
		s := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			m.used.Store(int64(s[0].Value.Uint64()))
		}
		m.readAt.Store(now)
		m.refreshing.Store(false)
	}
	return m.used.Load()
}

// overMemory reports whether cmd must be refused because used memory is
// over maxmemory: only commands Redis flags "denyoom" are, so reads,
// deletes and administration keep working.
func (e *Engine) overMemory(cmd *command) bool {
	limit := e.config.MaxMemory()
	if limit == 0 || !slices.Contains(cmd.flags, "denyoom") {
		return false
	}
	return e.config.UsedMemory() > limit
}
