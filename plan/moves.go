package plan

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"geoshard/shard"
)

// Moves is what switching from one map to another costs in data: how
// many members (by their last ping) would change shard.
type Moves struct {
	Members, Moved int
	// Pairs matches each new shard with the current shard that holds most
	// of its members, one to one, greatest overlap first. Members count
	// as moving when their new shard is not paired with their current
	// one: a shard that keeps most of its drivers keeps its place
	// (node) under a new name. Unpaired new shards map to "".
	Pairs map[string]string
}

// CountMoves finds each driver's last position in the workload and
// counts those that the new map puts in a shard other than the one
// paired with its current shard.
func CountMoves(w *Workload, cur, next *shard.Map) *Moves {
	last := map[string]Ping{}
	for _, p := range w.Pings {
		if q, ok := last[p.ID]; !ok || p.T >= q.T {
			last[p.ID] = p
		}
	}
	type pair struct{ next, cur shard.ID }
	overlap := map[pair]int{}
	for _, p := range last {
		overlap[pair{next.Locate(p.Lon, p.Lat), cur.Locate(p.Lon, p.Lat)}]++
	}
	pairs := make([]pair, 0, len(overlap))
	for k := range overlap {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(overlap[b], overlap[a]); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.next, b.next), cmp.Compare(a.cur, b.cur))
	})
	mv := &Moves{Members: len(last), Pairs: map[string]string{}}
	usedNext, usedCur := map[shard.ID]bool{}, map[shard.ID]bool{}
	kept := 0
	for _, k := range pairs {
		if usedNext[k.next] || usedCur[k.cur] {
			continue
		}
		usedNext[k.next], usedCur[k.cur] = true, true
		mv.Pairs[next.Name(k.next)] = cur.Name(k.cur)
		kept += overlap[k]
	}
	for id := 0; id < next.Len(); id++ {
		if !usedNext[shard.ID(id)] {
			mv.Pairs[next.Name(shard.ID(id))] = ""
		}
	}
	mv.Moved = mv.Members - kept
	return mv
}

// Write prints the moves in one paragraph.
func (mv *Moves) Write(w io.Writer, curName string) error {
	names := make([]string, 0, len(mv.Pairs))
	for n := range mv.Pairs {
		names = append(names, n)
	}
	slices.Sort(names)
	_, err := fmt.Fprintf(w, "moving from %s: %d of %d drivers (%.1f %%) would change shard\n",
		curName, mv.Moved, mv.Members, 100*ratio(float64(mv.Moved), float64(mv.Members)))
	for _, n := range names {
		if c := mv.Pairs[n]; c != "" && err == nil {
			_, err = fmt.Fprintf(w, "  %s takes the place of %s\n", n, c)
		}
	}
	return err
}
