package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"geoshard/commands"
	"geoshard/snapshot"
)

// SnapshotOptions are the directives of snapshots, named as in redis.conf
// where Redis has them.
type SnapshotOptions struct {
	Save       []SavePoint // "save 3600 1 300 100"; none: no automatic saves
	Dir        string      // "dir"; "" is the working directory
	DBFilename string      // "dbfilename"; "" is commands.DefaultDBFilename
	// Corrupt is "snapshot-corrupt": what to do at start with a snapshot
	// that cannot be read. "refuse" (the default) will not start; "ignore"
	// starts empty and moves the file aside.
	Corrupt      string
	KeySaveDelay int // "rdb-key-save-delay": µs per key while saving; for tests
}

// SavePoint is one pair of the save schedule: save once Changes writes
// happened and Seconds passed since the last save.
type SavePoint struct {
	Seconds, Changes int64
}

func formatSave(points []SavePoint) string {
	var words []string
	for _, p := range points {
		words = append(words, strconv.FormatInt(p.Seconds, 10), strconv.FormatInt(p.Changes, 10))
	}
	return strings.Join(words, " ")
}

// parseSave reads "seconds changes [seconds changes ...]"; no words or a
// single "" turns automatic saves off.
func parseSave(vals []string) ([]SavePoint, error) {
	if len(vals) == 1 {
		vals = strings.Fields(vals[0])
	}
	if len(vals)%2 != 0 {
		return nil, fmt.Errorf("want pairs of seconds and changes")
	}
	var out []SavePoint
	for i := 0; i < len(vals); i += 2 {
		secs, err1 := strconv.ParseInt(vals[i], 10, 64)
		changes, err2 := strconv.ParseInt(vals[i+1], 10, 64)
		if err1 != nil || err2 != nil || secs < 1 || changes < 0 {
			return nil, fmt.Errorf("want seconds >= 1 and changes >= 0, got %q %q", vals[i], vals[i+1])
		}
		out = append(out, SavePoint{secs, changes})
	}
	return out, nil
}

func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

func checkDBFilename(name string) error {
	if name == "" || strings.ContainsRune(name, filepath.Separator) {
		return fmt.Errorf("dbfilename can't be a path, just a filename")
	}
	return nil
}

func init() {
	directives = append(directives,
		directive{name: "save", multi: true,
			// Each save line adds its points, as in redis.conf; save "" clears.
			set: func(o *Options, vals []string) error {
				p, err := parseSave(vals)
				if err == nil && len(p) == 0 {
					o.Snapshot.Save = nil
				}
				o.Snapshot.Save = append(o.Snapshot.Save, p...)
				return err
			},
			get: func(o *Options) string { return formatSave(o.Snapshot.Save) }},
		stringDirective("dir", func(o *Options) *string { return &o.Snapshot.Dir }),
		directive{name: "dbfilename",
			set: oneWord(func(o *Options, v string) error {
				o.Snapshot.DBFilename = v
				return checkDBFilename(v)
			}),
			get: func(o *Options) string { return o.Snapshot.DBFilename }},
		directive{name: "snapshot-corrupt",
			set: oneWord(func(o *Options, v string) error {
				v = strings.ToLower(v)
				if v != "refuse" && v != "ignore" {
					return fmt.Errorf("want refuse or ignore")
				}
				o.Snapshot.Corrupt = v
				return nil
			}),
			get: func(o *Options) string {
				if o.Snapshot.Corrupt == "" {
					return "refuse"
				}
				return o.Snapshot.Corrupt
			}},
		intDirective("rdb-key-save-delay", 0, 10_000_000, func(o *Options) *int { return &o.Snapshot.KeySaveDelay }),
	)
}

// snapshotState is what CONFIG SET may change while the server runs.
type snapshotState struct {
	mu       sync.Mutex
	save     []SavePoint
	dir      string
	dbfile   string
	delayUS  int
	mode     commands.ShutdownMode // what SHUTDOWN asked; default for SIGTERM
	lastTry  time.Time             // of the last scheduled save
	lastFail bool
}

func (st *snapshotState) get(f func() string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return f()
}

// snapshotSettings adds the snapshot directives that change live.
func (s *Server) snapshotSettings(c *commands.Config) {
	st := &s.snap
	o := s.opts.Snapshot
	st.save, st.dir, st.dbfile, st.delayUS = o.Save, o.Dir, o.DBFilename, o.KeySaveDelay
	if st.dir == "" {
		st.dir = "."
	}
	if abs, err := filepath.Abs(st.dir); err == nil {
		st.dir = abs
	}
	if st.dbfile == "" {
		st.dbfile = commands.DefaultDBFilename
	}
	live := func(name string, get func() string, set func(string) error) {
		c.Add(&commands.Setting{Name: name, Get: func() string { return st.get(get) }, Set: func(v string) error {
			st.mu.Lock()
			defer st.mu.Unlock()
			return set(v)
		},
			// Where snapshots are written: as in Redis 7.0, a client may
			// change them only with enable-protected-configs.
			Protected: name == "dir" || name == "dbfilename"})
	}
	live("save", func() string { return formatSave(st.save) }, func(v string) error {
		p, err := parseSave([]string{v})
		if err == nil {
			st.save = p
		}
		return err
	})
	live("dir", func() string { return st.dir }, func(v string) error {
		abs, err := filepath.Abs(v)
		if err == nil {
			err = checkDir(abs)
		}
		if err == nil {
			st.dir = abs
		}
		return err
	})
	live("dbfilename", func() string { return st.dbfile }, func(v string) error {
		err := checkDBFilename(v)
		if err == nil {
			st.dbfile = v
		}
		return err
	})
	live("rdb-key-save-delay", func() string { return strconv.Itoa(st.delayUS) }, func(v string) error {
		n, err := parseInt(v, 0, 10_000_000)
		if err == nil {
			st.delayUS = n
		}
		return err
	})
}

// loadSnapshot makes the start warm: it reads the snapshot if there is
// one. A snapshot that cannot be read stops the start, unless
// snapshot-corrupt is ignore: then the server starts empty and the file
// is moved aside, so the next save does not destroy what an operator may
// want to look at.
func (s *Server) loadSnapshot() error {
	s.engine.OnSaveError(func(what string, err error) { s.log.Error(what+" failed", "err", err) })
	path := s.engine.SnapshotPath()
	if err := checkDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("snapshot dir: %w", err)
	}
	st, err := s.engine.Load(path)
	switch {
	case err == nil:
		s.log.Info("snapshot loaded", "file", path, "keys", st.Keys, "members", st.Members,
			"expired", st.Expired, "taken", st.Created.UTC().Format(time.RFC3339), "took", st.Took.Round(time.Millisecond).String())
		return nil
	case errors.Is(err, os.ErrNotExist):
		s.log.Info("no snapshot, starting empty", "file", path)
		return nil
	case s.opts.Snapshot.Corrupt != "ignore":
		return fmt.Errorf("%w (start with --snapshot-corrupt ignore to start empty)", err)
	}
	aside := path + ".bad-" + time.Now().UTC().Format("20060102T150405")
	if rerr := os.Rename(path, aside); rerr != nil {
		return fmt.Errorf("%w; and cannot move it aside: %v", err, rerr)
	}
	s.log.Error("snapshot unreadable, starting empty (snapshot-corrupt ignore)", "err", err, "moved_to", aside)
	return nil
}

// removeStaleTemps deletes what a crashed save left in the snapshot
// directory. Only once the port is ours: a second instance started by
// mistake on the same directory fails to bind before it gets here, and
// RemoveTemps spares files that a live save (any process's) holds locked.
func (s *Server) removeStaleTemps() {
	if removed, _ := snapshot.RemoveTemps(s.engine.SnapshotPath()); len(removed) > 0 {
		s.log.Warn("removed unfinished snapshot files", "files", removed)
	}
}

func (s *Server) maybeSave() {
	st := &s.snap
	st.mu.Lock()
	points := st.save
	retryWait := st.lastFail && time.Since(st.lastTry) < 5*time.Second
	st.mu.Unlock()
	if len(points) == 0 || retryWait || s.engine.SaveInProgress() {
		return
	}
	dirty, since := s.engine.Dirty(), time.Since(s.engine.LastSave())
	for _, p := range points {
		if dirty >= p.Changes && since >= time.Duration(p.Seconds)*time.Second {
			s.log.Info("scheduled save", "changes", dirty, "seconds", p.Seconds)
			st.mu.Lock()
			st.lastTry = time.Now()
			st.mu.Unlock()
			err := s.engine.BGSave(func(err error) {
				st.mu.Lock()
				st.lastFail = err != nil
				st.mu.Unlock()
				if err != nil {
					s.log.Error("scheduled save failed", "err", err)
				} else {
					s.log.Info("scheduled save done", "file", s.engine.SnapshotPath())
				}
			})
			if err != nil && !errors.Is(err, commands.ErrSaveInProgress) {
				s.log.Error("scheduled save failed", "err", err)
			}
			return
		}
	}
}

// wantsSave says whether stopping in this mode writes a snapshot: SAVE
// always, NOSAVE never, otherwise (SIGTERM, plain SHUTDOWN) when a save
// schedule is set, as in Redis.
func (s *Server) wantsSave(mode commands.ShutdownMode) bool {
	s.snap.mu.Lock()
	defer s.snap.mu.Unlock()
	return mode == commands.ShutdownSave || (mode == commands.ShutdownDefault && len(s.snap.save) > 0)
}

// shutdownSave is SHUTDOWN's part in snapshots. The snapshot itself is
// written after every client stopped (finalSave), so no acknowledged
// write misses it; here the directory is tried first, so that SHUTDOWN
// fails and the server keeps running, as in Redis, when the save could
// not be written.
func (s *Server) shutdownSave(mode commands.ShutdownMode) error {
	s.snap.mu.Lock()
	s.snap.mode = mode
	s.snap.mu.Unlock()
	if !s.wantsSave(mode) {
		return nil
	}
	path := s.engine.SnapshotPath()
	f, err := os.CreateTemp(filepath.Dir(path), snapshot.TempPattern(path))
	if err != nil {
		s.log.Error("SHUTDOWN: cannot write the snapshot, not stopping", "err", err)
		return err
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// finalSave writes the snapshot of a stopping server, once the clients
// are gone; a background save still running is waited for first.
func (s *Server) finalSave() error {
	s.snap.mu.Lock()
	mode := s.snap.mode
	s.snap.mu.Unlock()
	if !s.wantsSave(mode) {
		return nil
	}
	for i := 0; s.engine.SaveInProgress() && i < 6000; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := s.engine.Save(); err != nil {
		s.log.Error("saving on shutdown failed; the previous snapshot is kept", "err", err)
		return fmt.Errorf("saving on shutdown: %w", err)
	}
	s.log.Info("saved on shutdown", "file", s.engine.SnapshotPath(), "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}
