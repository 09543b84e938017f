package geo

// cmpFunc is Redis' sort_gp_asc / sort_gp_desc on the distances of two
// results: 1, 0 or -1 by plain double comparison (so NaN is "less" than
// everything, both ways), negated for DESC.
func cmpFunc[T any](dist func(*T) float64, desc bool) func(a, b *T) int {
	if desc {
		return func(a, b *T) int { return -cmpDist(dist(a), dist(b)) }
	}
	return func(a, b *T) int { return cmpDist(dist(a), dist(b)) }
}

func cmpDist(a, b float64) int {
	if a > b {
		return 1
	} else if a == b {
		return 0
	}
	return -1
}

// Sort orders s by distance like Redis' qsort call does with glibc: a
// top-down merge sort, so ties keep their discovery order for ASC and
// for DESC alike (DESC does not reverse ties).
func Sort[T any](s []T, dist func(*T) float64, desc bool) {
	if len(s) < 2 {
		return
	}
	tmp := make([]T, len(s))
	msort(s, tmp, cmpFunc(dist, desc))
}

// msort is glibc's msort_with_tmp.
func msort[T any](b, tmp []T, cmp func(a, b *T) int) {
	n := len(b)
	if n <= 1 {
		return
	}
	n1 := n / 2
	b1, b2 := b[:n1], b[n1:]
	msort(b1, tmp, cmp)
	msort(b2, tmp, cmp)
	i, j, k := 0, 0, 0
	for i < len(b1) && j < len(b2) {
		if cmp(&b1[i], &b2[j]) <= 0 {
			tmp[k] = b1[i]
			i++
		} else {
			tmp[k] = b2[j]
			j++
		}
		k++
	}
	k += copy(tmp[k:], b1[i:])
	copy(b, tmp[:k]) // what is left of b2 is already in place
}

// SortTop orders the k nearest (ASC) or farthest (DESC) results into
// s[:k] exactly as Redis' pqsort does for COUNT k without ANY when there
// are more than k matches: NetBSD's Bentley-McIlroy quicksort skipping
// partitions outside positions [0, k-1]. Ties come out in that
// algorithm's order (ten tied results m0..m9 with k=3 give m9 m1 m2).
// The order of s[k:] is unspecified. For k >= len(s) Redis uses its full
// sort, and so does SortTop; k <= 0 does nothing.
func SortTop[T any](s []T, k int, dist func(*T) float64, desc bool) {
	switch {
	case k <= 0:
		return
	case k >= len(s):
		Sort(s, dist, desc)
		return
	}
	p := pqsorter[T]{s: s, cmp: cmpFunc(dist, desc), last: k - 1}
	p.sort(0, len(s))
}

type pqsorter[T any] struct {
	s    []T
	cmp  func(a, b *T) int
	last int // rrange: the last position that must end up sorted
}

func (p *pqsorter[T]) less0(i, j int) int { return p.cmp(&p.s[i], &p.s[j]) }

func (p *pqsorter[T]) swap(i, j int) { p.s[i], p.s[j] = p.s[j], p.s[i] }

func (p *pqsorter[T]) vecswap(i, j, n int) {
	for ; n > 0; n-- {
		p.swap(i, j)
		i++
		j++
	}
}

func (p *pqsorter[T]) med3(a, b, c int) int {
	if p.less0(a, b) < 0 {
		if p.less0(b, c) < 0 {
			return b
		}
		if p.less0(a, c) < 0 {
			return c
		}
		return a
	}
	if p.less0(b, c) > 0 {
		return b
	}
	if p.less0(a, c) < 0 {
		return a
	}
	return c
}

func (p *pqsorter[T]) insertion(a, n int) {
	for pm := a + 1; pm < a+n; pm++ {
		for pl := pm; pl > a && p.less0(pl-1, pl) > 0; pl-- {
			p.swap(pl, pl-1)
		}
	}
}

// sort is _pqsort on s[a:a+n] (indices instead of byte pointers; lrange
// is always 0, so a partition is visited iff it starts at or before
// p.last).
func (p *pqsorter[T]) sort(a, n int) {
	for {
		if n < 7 {
			p.insertion(a, n)
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = p.med3(pl, pl+d, pl+2*d)
				pm = p.med3(pm-d, pm, pm+d)
				pn = p.med3(pn-2*d, pn-d, pn)
			}
			pm = p.med3(pl, pm, pn)
		}
		p.swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := p.less0(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					p.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := p.less0(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					p.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			p.swap(pb, pc)
			pb++
			pc--
		}
		// NetBSD's qsort switches to insertion sort here when the pass
		// swapped nothing; redis-server 7.0.15 behaves as if it did not
		// (measured: a 29-result COUNT 20 DESC query with ties differs
		// otherwise), so neither do we.
		pn := a + n
		r := min(pa-a, pb-pa)
		p.vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		p.vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && a <= p.last {
			p.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = pn-r, r
		if a > p.last {
			return
		}
	}
}
