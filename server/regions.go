package server

import (
	"fmt"
	"time"

	"geoshard/router"
	"geoshard/shard"
)

// regionsPath is the region map file in use, "" for the embedded world map.
func (s *Server) regionsPath() string { return *s.regionsFile.Load() }

// reloadRegions puts a new region map in force without a restart (CONFIG
// SET regions FILE; "" goes back to the embedded map). The file is
// validated whole first, and a bad one changes nothing. The new router
// takes over the members where they are, in O(keys + shards) while
// commands wait, and a background mover then takes each member to the
// shard the new map gives it, keeping its score and write time; searches
// ask both maps' shards meanwhile, and INFO shards shows the progress. A
// reload while a move runs is refused.
func (s *Server) reloadRegions(path string) error {
	m := shard.DefaultMap()
	if path != "" {
		var err error
		if m, err = shard.LoadMapFile(path); err != nil {
			return err
		}
	}
	m.Borders() // computed here, not while every command waits
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
