package commands

import (
	"sync"
	"sync/atomic"
)

// What every command writes is spread over slots, one cache line each,
// and a client always uses the slot of its id: two connections served by
// two cores then mostly write different lines, where one shared counter
// or one reader count would move its cache line between the cores on
// every command (Redis, single-threaded, has no such cost to avoid).
// Readers (INFO, the save schedule) add the slots up.

// slots is how many ways the hot counters and the keyspace lock are
// split: a few times the cores this server is meant for, so that the
// clients a core serves at one moment rarely share a slot.
const slots = 8

// slotOf returns the slot of a client id.
func slotOf(id int64) int { return int(uint64(id) % slots) }

// slotCounter is a counter spread over slots.
type slotCounter struct {
	slot [slots]struct {
		n atomic.Int64
		_ [56]byte
	}
}

// Add adds n in slot i.
func (s *slotCounter) Add(i int, n int64) { s.slot[i].n.Add(n) }

// Load returns the sum of the slots.
func (s *slotCounter) Load() int64 {
	var n int64
	for i := range s.slot {
		n += s.slot[i].n.Load()
	}
	return n
}

// Store sets the counter to n (CONFIG RESETSTAT: 0).
func (s *slotCounter) Store(n int64) {
	for i := range s.slot {
		s.slot[i].n.Store(0)
	}
	s.slot[0].n.Add(n)
}

// commandStat counts one command's calls for INFO commandstats.
type commandStat struct {
	slot [slots]struct {
		calls, usec, failed atomic.Int64
		_                   [40]byte
	}
}

// add counts one call, in the client's slot.
func (st *commandStat) add(i int, usec int64, failed bool) {
	s := &st.slot[i]
	s.calls.Add(1)
	s.usec.Add(usec)
	if failed {
		s.failed.Add(1)
	}
}

// totals returns the calls, microseconds and failed calls of every slot.
func (st *commandStat) totals() (calls, usec, failed int64) {
	for i := range st.slot {
		calls += st.slot[i].calls.Load()
		usec += st.slot[i].usec.Load()
		failed += st.slot[i].failed.Load()
	}
	return calls, usec, failed
}

// keyspaceLock is a reader-writer lock split into slots: a command takes
// its client's slot shared; a command that needs the keyspace alone takes
// every slot, in order. The rare exclusive command pays slots lock
// operations so that the common one writes a cache line no other core
// wants.
type keyspaceLock struct {
	slot [slots]struct {
		_  [64]byte
		mu sync.RWMutex
		_  [40]byte
	}
}

// RLockSlot takes slot i shared.
func (l *keyspaceLock) RLockSlot(i int) { l.slot[i].mu.RLock() }

// RUnlockSlot releases slot i.
func (l *keyspaceLock) RUnlockSlot(i int) { l.slot[i].mu.RUnlock() }

// RLock takes the keyspace shared, for work of no client's (slot 0).
func (l *keyspaceLock) RLock() { l.RLockSlot(0) }

// RUnlock releases RLock.
func (l *keyspaceLock) RUnlock() { l.RUnlockSlot(0) }

// Lock takes the keyspace alone: every slot, always in the same order.
func (l *keyspaceLock) Lock() {
	for i := range l.slot {
		l.slot[i].mu.Lock()
	}
}

// Unlock releases Lock.
func (l *keyspaceLock) Unlock() {
	for i := len(l.slot) - 1; i >= 0; i-- {
		l.slot[i].mu.Unlock()
	}
}
