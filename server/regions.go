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
// validated whole first, and a bad one changes nothing. Then, with every
// command held back, each member moves to the shard the new map gives it,
// keeping its score and write time; INFO shows the new version.
func (s *Server) reloadRegions(path string) error {
	m := shard.DefaultMap()
	if path != "" {
		var err error
		if m, err = shard.LoadMapFile(path); err != nil {
			return err
		}
	}
	start := time.Now()
	var members int
	err := s.engine.SwapRouter(func(old *router.Router) (*router.Router, error) {
		r, err := old.Rebuilt(m)
		if err == nil {
			members = r.ShardMembersTotal()
		}
		return r, err
	})
	if err != nil {
		return fmt.Errorf("region map %s: %w", path, err)
	}
	s.regionsFile.Store(&path)
	s.log.Info("region map reloaded", "file", path, "version", m.Version(), "shards", m.Len(),
		"members", members, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
