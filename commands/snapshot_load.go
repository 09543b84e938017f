package commands

import (
	"errors"
	"fmt"
	"io"
	"time"

	"geoshard/router"
	"geoshard/shard"
	"geoshard/snapshot"
)

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
// members go in parts to a placer goroutine, which prepares them while
// the next part is decoded, and the router then places the whole key in
// parallel and builds each shard's index in one sorted pass.
func (e *Engine) load(r *snapshot.Reader, st *LoadStats) error {
	var p *placer
	endKey := func() {
		if p != nil {
			p.finish()
			p = nil
		}
	}
	err := e.decode(r, st, endKey, func(k shard.Key, m memberView) {
		if p == nil {
			p = startPlacer(e.Router().NewKeyRestore(k))
		}
		p.add(router.Saved{Member: m.name, Score: m.score, Stamp: m.stamp})
	})
	endKey()
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
			if _, err := e.deleteKey(nil, dbIndex, rec.Key); err != nil {
				return fmt.Errorf("snapshot: replacing key %q: %w", rec.Key, err)
			}
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
			if _, err := e.deleteKey(nil, dbIndex, rec.Key); err != nil {
				return fmt.Errorf("snapshot: replacing key %q: %w", rec.Key, err)
			}
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
