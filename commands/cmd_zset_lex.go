package commands

import "geoshard/router"

// lexRange is a BYLEX range: each end a string, exclusive or not, or one
// of the open ends "-" (below everything) and "+" (above everything).
type lexRange struct {
	min, max     string
	minEx, maxEx bool
	minInf       int // -1: "-", +1: "+", 0: a string
	maxInf       int
}

func parseLexRange(minArg, maxArg []byte) (lexRange, bool) {
	var r lexRange
	var ok bool
	if r.min, r.minEx, r.minInf, ok = parseLexItem(minArg); !ok {
		return r, false
	}
	r.max, r.maxEx, r.maxInf, ok = parseLexItem(maxArg)
	return r, ok
}

// parseLexItem reads one end as zslParseLexRangeItem: "+", "-", or a
// string after "(" (exclusive) or "[" (inclusive).
func parseLexItem(b []byte) (s string, ex bool, inf int, ok bool) {
	if len(b) == 0 {
		return "", false, 0, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return "", false, 0, false
		}
		if b[0] == '+' {
			return "", true, 1, true
		}
		return "", true, -1, true
	case '(':
		return string(b[1:]), true, 0, true
	case '[':
		return string(b[1:]), false, 0, true
	}
	return "", false, 0, false
}

// cmpLex compares a member with a range end as sdscmplex does.
func cmpLex(a string, b string, bInf int) int {
	switch {
	case bInf < 0:
		return 1
	case bInf > 0:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *lexRange) gteMin(m string) bool {
	c := cmpLex(m, r.min, r.minInf)
	return c > 0 || (!r.minEx && c == 0)
}

func (r *lexRange) lteMax(m string) bool {
	c := cmpLex(m, r.max, r.maxInf)
	return c < 0 || (!r.maxEx && c == 0)
}

// empty reports the ranges Redis answers empty without looking.
func (r *lexRange) empty() bool {
	var c int
	switch {
	case r.minInf == r.maxInf && r.minInf != 0:
		c = 0
	case r.minInf < 0 || r.maxInf > 0:
		c = -1
	case r.minInf > 0 || r.maxInf < 0:
		c = 1
	case r.min < r.max:
		c = -1
	case r.min > r.max:
		c = 1
	}
	return c > 0 || (c == 0 && (r.minEx || r.maxEx))
}

// walk selects members of a whole sorted set (in order) as Redis does for
// a set small enough to be a listpack: start at the first member past min
// (the last below max, reversed), stop at the first one out of range. On
// a set whose members share one score, which is what BYLEX is for, this
// is exactly the lexicographic range.
func (r *lexRange) walk(all []router.Member, rev bool, offset, limit int64) []router.Member {
	if len(all) == 0 || r.empty() ||
		!r.gteMin(all[len(all)-1].Name) || !r.lteMax(all[0].Name) {
		return nil
	}
	if offset > 0 && offset >= int64(len(all)) {
		return nil
	}
	pos := -1
	if rev {
		for i := len(all) - 1; i >= 0; i-- {
			if r.lteMax(all[i].Name) {
				if r.gteMin(all[i].Name) {
					pos = i
				}
				break
			}
		}
	} else {
		for i := range all {
			if r.gteMin(all[i].Name) {
				if r.lteMax(all[i].Name) {
					pos = i
				}
				break
			}
		}
	}
	if pos < 0 {
		return nil
	}
	step := 1
	if rev {
		step = -1
	}
	inside := func(i int) bool { return i >= 0 && i < len(all) }
	for ; inside(pos) && offset != 0; offset-- {
		pos += step
	}
	var out []router.Member
	for ; inside(pos) && limit != 0; limit-- {
		m := all[pos]
		if (rev && !r.gteMin(m.Name)) || (!rev && !r.lteMax(m.Name)) {
			break
		}
		out = append(out, m)
		pos += step
	}
	return out
}
