package router

// ring is a queue of a node's recent records, oldest first, bounded in
// length: the changes a count asks about (changes.go) and the copies a
// search asks about (departures.go).
type ring[T any] struct {
	buf   []T
	start int
	n     int
}

// at returns the i-th record, oldest first.
func (r *ring[T]) at(i int) *T { return &r.buf[(r.start+i)%len(r.buf)] }

// prune drops the records old says are past keeping, oldest first.
func (r *ring[T]) prune(old func(*T) bool) {
	for r.n > 0 && old(r.at(0)) {
		r.pop()
	}
}

// push appends x; when limit records are kept already it drops the
// oldest and returns it (dropped).
func (r *ring[T]) push(x T, limit, least int) (oldest T, dropped bool) {
	if r.n == len(r.buf) {
		if len(r.buf) < limit {
			r.grow(least)
		} else {
			oldest, dropped = *r.at(0), true
			r.pop()
		}
	}
	*r.at(r.n) = x
	r.n++
	return oldest, dropped
}

func (r *ring[T]) pop() {
	var zero T
	r.buf[r.start] = zero // no name kept alive
	r.start = (r.start + 1) % len(r.buf)
	r.n--
}

// grow doubles the ring (to least at first), oldest first.
func (r *ring[T]) grow(least int) {
	nb := make([]T, max(least, 2*len(r.buf)))
	for i := range r.n {
		nb[i] = *r.at(i)
	}
	r.buf, r.start = nb, 0
}
