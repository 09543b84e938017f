package router

// Local writes under a pinned view. A node's internal commands hold its
// table in force from their version check to their last write (a swap
// waits for them), so a new replica's copy of a shard, served under the
// next table, sees every write admitted under the one before. A write a
// node makes to its own shards needs the same: stored after the swap and
// the copy, but routed (to the old replica) under the old table, it
// would be missing from the new replica (TestFillDuringWrite).

// ViewPinner is a Remote that can hold a view in force across a local
// write. cluster.Node is one; a Remote that is not has no copies to race.
type ViewPinner interface {
	// Pin holds v in force until release is called; ok is false, and
	// nothing held, when another view is in force already.
	Pin(v View) (release func(), ok bool)
}

// pinned runs a local write under view v, or fails with ErrStale when v
// is no longer in force: the caller refreshes and routes the write anew.
func (r *Router) pinned(v View, write func() error) error {
	p, ok := r.cl.(ViewPinner)
	if !ok {
		return write()
	}
	release, ok := p.Pin(v)
	if !ok {
		return ErrStale
	}
	defer release()
	return write()
}
