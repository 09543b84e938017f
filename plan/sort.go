package plan

import (
	"cmp"
	"slices"
)

// sortWorkload orders pings and searches by time, stably, so that replays
// and files see events as they happened.
func sortWorkload(w *Workload) {
	slices.SortStableFunc(w.Pings, func(a, b Ping) int { return cmp.Compare(a.T, b.T) })
	slices.SortStableFunc(w.Searches, func(a, b Search) int { return cmp.Compare(a.T, b.T) })
}
