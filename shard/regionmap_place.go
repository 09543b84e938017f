package shard

import (
	"fmt"
	"math"
)

// rmMaxIDs is the size of the ID space a placed map may use.
const rmMaxIDs = math.MaxUint16 + 1

// Placed returns the map with its shards numbered from off, in an ID
// space of total shards. The IDs outside [off, off+Len()) own no area
// (Distance to them is +Inf, Touching and Locate never give them) and are
// named by outside. A router reloading its map keeps the old shards, with
// the members still in them, under their old IDs while the new map's
// shards take IDs of their own, so no member's shard ID needs rewriting.
func (m *Map) Placed(off, total int, outside func(ID) string) (*Map, error) {
	n := m.own()
	if off < 0 || off+n > total || total > rmMaxIDs {
		return nil, fmt.Errorf("region map of %d shards does not fit at %d in %d IDs (at most %d)", n, off, total, rmMaxIDs)
	}
	pm := &Map{
		names:    make([]string, total),
		byName:   make(map[string]ID, total),
		catchAll: m.catchAll - ID(m.off) + ID(off),
		margin:   m.margin,
		version:  m.version,
		verNum:   m.verNum,
		polys:    make([]rmPoly, len(m.polys)),
		byShard:  make([][]int32, total),
		single:   make([]bool, total),
		index:    m.index,
		exposed:  m.exposed,
		expIndex: m.expIndex,
		off:      off,
		n:        n,
	}
	for i := range total {
		id := ID(i)
		if i >= off && i < off+n {
			from := i - off + m.off
			pm.names[i], pm.byShard[i], pm.single[i] = m.names[from], m.byShard[from], m.single[from]
		} else {
			pm.names[i] = outside(id)
		}
		pm.byName[pm.names[i]] = id
	}
	for i, p := range m.polys {
		p.shard = p.shard - ID(m.off) + ID(off)
		pm.polys[i] = p
	}
	// The borders are m's, shifted: no polygon is searched again.
	src := m.adjacency()
	pm.adjOnce.Do(func() {
		pm.adj = rmAdj{start: make([]int32, total+1), above: make([]ID, len(src.above))}
		for i := range total {
			from := i - off + m.off
			pm.adj.start[i+1] = pm.adj.start[i]
			if i >= off && i < off+n {
				pm.adj.start[i+1] += src.start[from+1] - src.start[from]
			}
		}
		for i, b := range src.above {
			pm.adj.above[i] = b - ID(m.off) + ID(off)
		}
	})
	return pm, nil
}

// Own returns the IDs of the map's own shards, [first, first+n): all of
// them, from 0, unless the map was Placed.
func (m *Map) Own() (first, n int) { return m.off, m.own() }

// Owns reports whether id is one of the map's own shards (Own).
func (m *Map) Owns(id ID) bool { return int(id) >= m.off && int(id) < m.off+m.own() }

func (m *Map) own() int {
	if m.n == 0 {
		return len(m.names)
	}
	return m.n
}
