package commands

import (
	"errors"
	"path/filepath"
	"sync"
	"time"
)

// DefaultDBFilename is the snapshot's file name when dbfilename is unset.
// Not Redis's dump.rdb: the format is geoshard's own, and a Redis tool
// must not mistake it for an RDB file.
const DefaultDBFilename = "dump.gsnap"

// ErrSaveInProgress is what SAVE and BGSAVE get while a BGSAVE runs,
// worded as Redis's reply.
var ErrSaveInProgress = errors.New("Background save already in progress")

// persistence is the state INFO's persistence section reports.
type persistence struct {
	mu        sync.Mutex
	bgRunning bool
	bgStart   time.Time
	bgLast    time.Duration // length of the last background save; 0 before one
	scheduled bool          // BGSAVE SCHEDULE came during a save
	lastSave  time.Time     // of the last successful save (or start-up)
	lastErr   error         // of the last background save
	saves     int64
	// dirtyBase is the write count (see writes) at the last successful
	// save; changes since are the difference.
	dirtyBase int64
	loaded    LoadStats
	onError   func(what string, err error) // set before serving
}

// LoadStats says what Load read.
type LoadStats struct {
	Keys, Expired, Members int64
	Created                time.Time
	Took                   time.Duration
}

// SnapshotPath is where SAVE writes: the dir and dbfilename directives.
func (e *Engine) SnapshotPath() string {
	name := e.setting("dbfilename", DefaultDBFilename)
	if name == "" {
		name = DefaultDBFilename
	}
	return filepath.Join(e.setting("dir", "."), name)
}

// writes counts the changes made since the start, as Redis's dirty
// counter does: a GEOADD of 5,000 new members is 5,000, one that moves
// nobody 0, a write that does not count its elements (SET) 1.
func (e *Engine) writes() int64 { return e.dirty.Load() }

// Dirty returns how many changes happened since the last successful save.
func (e *Engine) Dirty() int64 {
	e.persist.mu.Lock()
	defer e.persist.mu.Unlock()
	return e.dirtyLocked()
}

func (e *Engine) dirtyLocked() int64 {
	return e.writes() - e.persist.dirtyBase
}

// LastSave returns when the last successful save finished (the start-up
// time before any).
func (e *Engine) LastSave() time.Time {
	e.persist.mu.Lock()
	defer e.persist.mu.Unlock()
	if e.persist.lastSave.IsZero() {
		return e.start
	}
	return e.persist.lastSave
}

// SaveInProgress reports whether a background save is running.
func (e *Engine) SaveInProgress() bool {
	e.persist.mu.Lock()
	defer e.persist.mu.Unlock()
	return e.persist.bgRunning
}

// LastSaveFailed reports whether the last background save failed.
func (e *Engine) LastSaveFailed() bool {
	e.persist.mu.Lock()
	defer e.persist.mu.Unlock()
	return e.persist.lastErr != nil
}
