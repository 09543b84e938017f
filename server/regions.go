package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"geoshard/router"
	"geoshard/shard"
)

// MaxRegionMapSize bounds a region map file: the largest maps planned so
// far are a few megabytes, and a client naming /dev/zero or a huge file
// must not make the server read it into memory.
const MaxRegionMapSize = 64 << 20

// regionsPath is the region map file in use, "" for the embedded world map.
func (s *Server) regionsPath() string { return *s.regionsFile.Load() }

// readRegionFile reads a region map file, checked as readChecked does.
func readRegionFile(path string) ([]byte, error) { return readChecked(path, MaxRegionMapSize) }

// readChecked reads a file the server reads on a client's request after
// checking that it is a regular file (not a FIFO, a device or a
// directory) of at most limit bytes. Opened without blocking, so a FIFO
// is refused rather than waited on.
func readChecked(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	// Limited again while reading: the file may grow after the check.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, err
}

// loadRegionFile reads and validates a region map file: the operator's
// start-up form, whose errors say everything.
func loadRegionFile(path string) (*shard.Map, error) {
	data, err := readRegionFile(path)
	if err != nil {
		return nil, err
	}
	return shard.LoadMap(data)
}

// errUnreadableMap is what a client gets for a file that cannot be read
// or is not JSON at all: the reason (missing, not permitted, a device,
// the first bytes of some file) goes to the log only, so that CONFIG SET
// regions cannot be used to learn about files on the server.
var errUnreadableMap = errors.New("not a readable region map file (the server log says why)")

// prepareRegions is the slow half of CONFIG SET regions FILE ("" goes
// back to the embedded map): reading and validating the new map whole,
// before the keyspace is locked, so no command waits on it and a bad map
// changes nothing. The function it returns is the other half.
func (s *Server) prepareRegions(path string) (func() error, error) {
	m := shard.DefaultMap()
	if path != "" {
		data, err := readRegionFile(path)
		if err == nil && !json.Valid(data) {
			// The JSON parser's error quotes the bytes it stopped at.
			err = errors.New("not JSON")
		}
		if err != nil {
			s.log.Warn("CONFIG SET regions: not a readable region map", "file", path, "err", err)
			return nil, fmt.Errorf("region map %s: %w", path, errUnreadableMap)
		}
		if m, err = shard.LoadMap(data); err != nil {
			return nil, fmt.Errorf("region map %s: %w", path, err)
		}
	}
	m.Borders() // computed here, not while every command waits
	return func() error { return s.swapRegions(path, m) }, nil
}

// swapRegions puts a validated region map in force without a restart.
// The new router takes over the members where they are, in O(keys +
// shards) while commands wait (CONFIG SET is exclusive), and a background
// mover then takes each member to the shard the new map gives it, keeping
// its score and write time; searches ask both maps' shards meanwhile, and
// INFO shards shows the progress. A reload while a move runs is refused.
func (s *Server) swapRegions(path string, m *shard.Map) error {
	start := time.Now()
	var nr *router.Router
	err := s.engine.SwapRouter(func(old *router.Router) (*router.Router, error) {
		var err error
		nr, err = old.Reload(m)
		return nr, err
	})
	if err != nil {
		return fmt.Errorf("region map %s: %w", path, err)
	}
	held := time.Since(start)
	s.regionsFile.Store(&path)
	_, _, total, _ := nr.Moving()
	s.log.Info("region map reloaded; moving members in the background", "file", path, "version", m.Version(),
		"shards", m.Len(), "members", total, "held", held.Round(time.Microsecond))
	go func() {
		begin := time.Now()
		nr.MoveMembers()
		s.log.Info("region map move finished", "version", m.Version(), "took", time.Since(begin).Round(time.Millisecond))
	}()
	return nil
}
