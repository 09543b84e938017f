package commands

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"geoshard/router"
	"geoshard/shard"
	"geoshard/snapshot"
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

// Load reads a snapshot into an empty engine before it serves anyone.
// On error nothing it read stays.
func (e *Engine) Load(path string) (LoadStats, error) {
	start := time.Now()
	r, err := snapshot.Open(path)
	if err != nil {
		return LoadStats{}, err
	}
	defer r.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	st := LoadStats{Created: r.Created()}
	if err := e.load(r, &st); err != nil {
		e.flushLocked()
		return LoadStats{}, err
	}
	st.Took = time.Since(start)
	e.persist.mu.Lock()
	e.persist.loaded = st
	e.persist.mu.Unlock()
	return st, nil
}

// load applies the records. Decoding is one stream; each geo key's
// members are gathered and handed to the router whole, which places them
// in parallel and builds each shard's index in one sorted pass.
func (e *Engine) load(r *snapshot.Reader, st *LoadStats) error {
	var key shard.Key
	var members []router.Saved
	flush := func() {
		e.Router().RestoreKey(key, members)
		members = members[:0]
	}
	err := e.decode(r, st, flush, func(k shard.Key, m memberView) {
		key = k
		members = append(members, router.Saved{Member: m.name, Score: m.score, Stamp: m.stamp})
	})
	flush()
	return err
}

// decode reads the records, applies all but members, and hands those to
// member; endKey runs before each geo key's record, so that the members
// of the key before are complete.
func (e *Engine) decode(r *snapshot.Reader, st *LoadStats, endKey func(), member func(shard.Key, memberView)) error {
	now := nowMS()
	var d *db
	dbIndex := -1
	var zkey shard.Key
	skip := false // the current geo key had expired
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d == nil && rec.Kind != snapshot.KindDB {
			return errors.New("snapshot: a record before any database")
		}
		switch rec.Kind {
		case snapshot.KindDB:
			if rec.DB >= Databases {
				return fmt.Errorf("snapshot: database %d, this server has %d", rec.DB, Databases)
			}
			dbIndex, d = rec.DB, e.dbs[rec.DB]
		case snapshot.KindString:
			if rec.ExpireMS != 0 && rec.ExpireMS <= now {
				st.Expired++
				continue
			}
			e.deleteKey(dbIndex, rec.Key)
			d.strings[rec.Key] = rec.Value
			if rec.ExpireMS != 0 {
				d.expires[rec.Key] = rec.ExpireMS
			}
			st.Keys++
		case snapshot.KindZset:
			endKey()
			zkey = shard.Key{DB: dbIndex, Name: rec.Key}
			skip = rec.ExpireMS != 0 && rec.ExpireMS <= now
			if skip {
				st.Expired++
				continue
			}
			e.deleteKey(dbIndex, rec.Key)
			if rec.ExpireMS != 0 {
				d.expires[rec.Key] = rec.ExpireMS
			}
			st.Keys++
		case snapshot.KindMember:
			if !skip {
				member(zkey, memberView{rec.Member, rec.Score, rec.Stamp})
				st.Members++
			}
		case snapshot.KindPosTTL:
			e.Router().SetKeyTTL(shard.Key{DB: dbIndex, Name: rec.Key}, rec.TTL)
		}
	}
}

// flushLocked empties every database and forgets per-key position TTLs;
// the caller holds e.mu alone.
func (e *Engine) flushLocked() {
	for i, d := range e.dbs {
		clear(d.strings)
		clear(d.expires)
		for k := range e.Router().KeyTTLs(i) {
			e.Router().SetKeyTTL(shard.Key{DB: i, Name: k}, -1)
		}
	}
	e.Router().Flush(-1)
}

// infoRDB writes INFO's snapshot fields, as Redis names them.
func infoRDB(e *Engine, b *infoBuilder) {
	p := &e.persist
	p.mu.Lock()
	defer p.mu.Unlock()
	b.int("rdb_changes_since_last_save", e.dirtyLocked())
	b.int("rdb_bgsave_in_progress", boolInt(p.bgRunning))
	last := p.lastSave
	if last.IsZero() {
		last = e.start
	}
	b.int("rdb_last_save_time", last.Unix())
	status := "ok"
	if p.lastErr != nil {
		status = "err"
	}
	b.field("rdb_last_bgsave_status", status)
	secs := func(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) }
	if p.bgLast > 0 {
		b.int("rdb_last_bgsave_time_sec", secs(p.bgLast))
	} else {
		b.int("rdb_last_bgsave_time_sec", -1)
	}
	if p.bgRunning {
		b.int("rdb_current_bgsave_time_sec", secs(time.Since(p.bgStart)))
	} else {
		b.int("rdb_current_bgsave_time_sec", -1)
	}
	b.int("rdb_saves", p.saves)
	b.int("rdb_last_load_keys_expired", p.loaded.Expired)
	b.int("rdb_last_load_keys_loaded", p.loaded.Keys)
}

func boolInt(v bool) int64 {
	if v {
		return 1
	}
	return 0
}
