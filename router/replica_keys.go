package router

// Whole-key changes seen by a replica while it fills. A fill merges a
// copy the primary made at some moment; a DEL, RENAME or FLUSHALL that
// reached this node after that moment would otherwise come back with the
// copy (issue 12: a silently wrong answer once the replica is promoted).
// Each change is logged with the stamp it was applied at here: a copied
// entry written no later than a drop of its key is gone, one written no
// later than a rename of its key belongs to the new name. The log is
// kept while any fill runs, plus the last few changes for a few seconds,
// since a drop can reach this node just before the fill begins and the
// primary just after serving the copy.

import (
	"sync"
	"time"

	"geoshard/shard"
)

// keyEventKind is what a whole-key change did.
type keyEventKind uint8

const (
	keyDropped keyEventKind = iota
	keyRenamed
	dbFlushed
)

// keyEvent is one whole-key change applied here at stamp at.
type keyEvent struct {
	at   int64
	kind keyEventKind
	key  shard.Key // dropped or renamed key
	to   shard.Key // a rename's new name
	db   int       // a flushed database, -1: all
}

// keyLog is the recent whole-key changes, oldest first.
type keyLog struct {
	mu     sync.RWMutex
	events []keyEvent
}

const (
	keyLogKeep = 10 * time.Second // history kept with no fill running
	keyLogMax  = 256              // and at most this many such events
)

// noteKeyEvent logs a whole-key change; the caller applies it to the
// shards after, so a fill either skips the copy (logged first) or its
// copy lands before the change and the change removes it.
func (r *Router) noteKeyEvent(ev keyEvent) {
	l := &r.remote.keyLog
	l.mu.Lock()
	defer l.mu.Unlock()
	ev.at = r.stamp()
	l.events = append(l.events, ev)
	r.pruneKeyLog(ev.at)
}

// pruneKeyLog drops events no fill needs: older than every running
// fill's start and beyond the short history. The caller holds the log.
func (r *Router) pruneKeyLog(t int64) {
	l := &r.remote.keyLog
	keepFrom := t - int64(keyLogKeep)
	r.remote.fills.Range(func(_, f any) bool {
		keepFrom = min(keepFrom, f.(*fill).begun)
		return true
	})
	cut := 0
	for cut < len(l.events) && l.events[cut].at < keepFrom {
		cut++
	}
	// Past the history's length, only what a running fill needs stays.
	for cut < len(l.events)-keyLogMax && !r.fillSince(l.events[cut].at) {
		cut++
	}
	l.events = l.events[cut:] // append reallocates the array as it fills

}

// fillSince reports whether a fill running now began at or before at.
func (r *Router) fillSince(at int64) bool {
	found := false
	r.remote.fills.Range(func(_, f any) bool {
		found = f.(*fill).begun <= at
		return !found
	})
	return found
}

// noteDrop, noteRename and noteFlush log a whole-key change before it is
// applied to this node's shards.
func (r *Router) noteDrop(k shard.Key) { r.noteKeyEvent(keyEvent{kind: keyDropped, key: k}) }

func (r *Router) noteRename(from, to shard.Key) {
	r.noteKeyEvent(keyEvent{kind: keyRenamed, key: from, to: to})
}

func (r *Router) noteFlush(db int) { r.noteKeyEvent(keyEvent{kind: dbFlushed, db: db}) }

// keyAfter follows a copy written at stamp under key k through the
// whole-key changes since: the key it is under now, or false when a drop
// or flush removed it. The caller holds the log's read lock.
func (r *Router) keyAfter(k shard.Key, stamp int64) (shard.Key, bool) {
	for _, ev := range r.remote.keyLog.events {
		if ev.at < stamp {
			continue
		}
		switch {
		case ev.kind == dbFlushed && (ev.db < 0 || ev.db == k.DB):
			return k, false
		case ev.kind == keyDropped && ev.key == k:
			return k, false
		case ev.kind == keyRenamed && ev.to == k && ev.key != k:
			return k, false // RENAME replaces its destination
		case ev.kind == keyRenamed && ev.key == k:
			k = ev.to
		}
	}
	return k, true
}
