package geo

import (
	"sort"
)

// zmodel is a sorted set as Redis walks it: ordered by (score, member).
type zmodel struct {
	items []zitem
	index map[string]int // member -> position in items
	dirty bool           // items not sorted since the last add
}

type zitem struct {
	member string
	score  float64
}

// geoadd stores members like GEOADD: a later position replaces an earlier one.
func (m *zmodel) add(member string, score float64) {
	if m.index == nil {
		m.index = map[string]int{}
	}
	if i, ok := m.index[member]; ok {
		m.items[i].score = score
	} else {
		m.index[member] = len(m.items)
		m.items = append(m.items, zitem{member, score})
	}
	m.dirty = true
}

func (m *zmodel) sorted() []zitem {
	if m.dirty {
		sort.Slice(m.items, func(i, j int) bool {
			a, b := m.items[i], m.items[j]
			if a.score != b.score {
				return a.score < b.score
			}
			return a.member < b.member
		})
		for i, it := range m.items {
			m.index[it.member] = i
		}
		m.dirty = false
	}
	return m.items
}

func (m *zmodel) score(member string) (float64, bool) {
	m.sorted()
	i, ok := m.index[member]
	if !ok {
		return 0, false
	}
	return m.items[i].score, true
}

type hit struct {
	member string
	dist   float64 // metres
	score  float64
}

const (
	sortNone = iota
	sortAsc
	sortDesc
)

// query runs a search the way georadiusGeneric does: scan the cells in
// order with the ANY limit, then sort (full or partial) and cut to COUNT.
func (m *zmodel) query(s *Search, count int, any bool, order int) []hit {
	limit := 0
	if any {
		limit = count
	}
	var hits []hit
	items := m.sorted()
	for _, c := range s.Cells {
		if limit > 0 && len(hits) >= limit {
			break
		}
		i := sort.Search(len(items), func(i int) bool { return items[i].score >= c.Min })
		for ; i < len(items) && items[i].score < c.Max; i++ {
			lon, lat := Decode(items[i].score)
			if d, ok := s.Match(lon, lat); ok {
				hits = append(hits, hit{items[i].member, d, items[i].score})
			}
			if limit > 0 && len(hits) >= limit {
				break
			}
		}
	}
	if count != 0 && order == sortNone && !any {
		order = sortAsc
	}
	returned := len(hits)
	if count != 0 && count < returned {
		returned = count
	}
	if order != sortNone {
		dist := func(h *hit) float64 { return h.dist }
		if returned == len(hits) {
			Sort(hits, dist, order == sortDesc)
		} else {
			SortTop(hits, returned, dist, order == sortDesc)
		}
	}
	return hits[:returned]
}
