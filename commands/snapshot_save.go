package commands

import (
	"strconv"
	"time"

	"geoshard/shard"
	"geoshard/snapshot"
)

// SAVE and BGSAVE: a copy of the keyspace taken under the exclusive lock,
// streamed into a snapshot file.

// view is a copy of the keyspace taken under the exclusive lock, so a
// background save writes one instant of it however long it takes.
type view struct {
	dbs [Databases]dbView
}

type dbView struct {
	strings []stringView
	zsets   []zsetView
	posTTLs map[string]time.Duration
}

type stringView struct {
	key    string
	value  []byte
	expire int64
}

type zsetView struct {
	key     string
	expire  int64
	members []memberView
}

type memberView struct {
	name  string
	score float64
	stamp int64
}

// copyView copies the keyspace; the caller holds e.mu alone.
func (e *Engine) copyView() *view {
	v := new(view)
	now := nowMS()
	for i, d := range e.dbs {
		dv := &v.dbs[i]
		for k, val := range d.strings {
			at := d.expires[k]
			if at != 0 && at <= now {
				continue
			}
			// Copied: string commands may change a value in place.
			dv.strings = append(dv.strings, stringView{k, append([]byte(nil), val...), at})
		}
		for _, k := range e.Router().Keys(i) {
			at := d.expires[k]
			if at != 0 && at <= now {
				continue
			}
			sk := shard.Key{DB: i, Name: k}
			z := zsetView{key: k, expire: at, members: make([]memberView, 0, e.Router().Card(sk))}
			e.Router().Each(sk, func(m string, score float64, stamp int64) bool {
				z.members = append(z.members, memberView{m, score, stamp})
				return true
			})
			if len(z.members) > 0 {
				dv.zsets = append(dv.zsets, z)
			}
		}
		dv.posTTLs = e.Router().KeyTTLs(i)
	}
	return v
}

// write streams the view into a new snapshot at path. delay is added per
// key, as Redis's rdb-key-save-delay does, so tests can catch a save in
// the middle.
func (v *view) write(path string, delay time.Duration) (size int64, err error) {
	w, err := snapshot.Create(path, time.Now())
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	pause := func() {
		if delay > 0 {
			time.Sleep(delay)
		}
	}
	for i := range v.dbs {
		d := &v.dbs[i]
		if len(d.strings) == 0 && len(d.zsets) == 0 && len(d.posTTLs) == 0 {
			continue
		}
		if err := w.DB(i); err != nil {
			return 0, err
		}
		for _, s := range d.strings {
			pause()
			if err := w.String(s.key, s.value, s.expire); err != nil {
				return 0, err
			}
		}
		for _, z := range d.zsets {
			pause()
			if err := w.Zset(z.key, z.expire); err != nil {
				return 0, err
			}
			for _, m := range z.members {
				if err := w.Member(m.name, m.score, m.stamp); err != nil {
					return 0, err
				}
			}
		}
		for k, ttl := range d.posTTLs {
			if err := w.PositionTTL(k, ttl); err != nil {
				return 0, err
			}
		}
	}
	if err := w.Commit(); err != nil {
		return 0, err
	}
	return w.Size(), nil
}

func (e *Engine) saveDelay() time.Duration {
	us, err := strconv.ParseInt(e.setting("rdb-key-save-delay", "0"), 10, 64)
	if err != nil || us <= 0 {
		return 0
	}
	return time.Duration(us) * time.Microsecond
}

// Save writes a snapshot now, with every command waiting, as SAVE does.
func (e *Engine) Save() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.saveLocked()
}

// saveLocked is SAVE; the caller holds e.mu alone.
func (e *Engine) saveLocked() error {
	e.persist.mu.Lock()
	running := e.persist.bgRunning
	e.persist.mu.Unlock()
	if running {
		return ErrSaveInProgress
	}
	dirty := e.writes()
	if _, err := e.copyView().write(e.SnapshotPath(), e.saveDelay()); err != nil {
		return err
	}
	e.saved(dirty, nil, 0)
	return nil
}

// saved records a finished save; dirty is the write count it covers.
func (e *Engine) saved(dirty int64, bgErr error, bgTook time.Duration) {
	e.persist.mu.Lock()
	defer e.persist.mu.Unlock()
	if bgTook > 0 {
		e.persist.bgLast = bgTook
		e.persist.lastErr = bgErr
	}
	if bgErr == nil {
		e.persist.lastSave = time.Now()
		e.persist.dirtyBase = dirty
		e.persist.saves++
	}
}

// BGSave starts a background save and returns once the keyspace is
// copied: the copy holds every command back, the write does not. done,
// if not nil, gets the save's result.
func (e *Engine) BGSave(done func(error)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bgSaveLocked(done)
}

func (e *Engine) bgSaveLocked(done func(error)) error {
	e.persist.mu.Lock()
	if e.persist.bgRunning {
		e.persist.mu.Unlock()
		return ErrSaveInProgress
	}
	e.persist.bgRunning = true
	e.persist.bgStart = time.Now()
	e.persist.mu.Unlock()
	dirty := e.writes()
	v := e.copyView()
	path, delay := e.SnapshotPath(), e.saveDelay()
	go func() {
		start := time.Now()
		_, err := v.write(path, delay)
		e.saved(dirty, err, max(time.Since(start), time.Nanosecond))
		e.persist.mu.Lock()
		e.persist.bgRunning = false
		again := e.persist.scheduled
		e.persist.scheduled = false
		e.persist.mu.Unlock()
		if done != nil {
			done(err)
		}
		if again { // BGSAVE SCHEDULE came meanwhile
			e.BGSave(func(err error) {
				if err != nil {
					e.logSaveError("BGSAVE SCHEDULE", err)
				}
			})
		}
	}()
	return nil
}
