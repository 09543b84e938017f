package commands

// maxGlobNesting is Redis 7.0's guard against abusive patterns: a match
// that needs more nested '*' than this fails.
const maxGlobNesting = 1000

// globMatch matches s against a Redis glob pattern (stringmatchlen):
// * ? [abc] [^a-z] and \ escapes.
func globMatch(pattern, s string) bool {
	skipLonger := false
	return globMatchFrom(pattern, s, &skipLonger, 0)
}

// globMatchFrom is stringmatchlen_impl. skipLonger is Redis's
// skipLongerMatches: once the rest of a pattern after a '*' failed at
// every position of the rest of the string, no earlier '*' can help by
// taking more characters, so the search ends there instead of trying
// every split (exponential in the number of '*': 11 of them against a
// 30-byte key took over a second).
func globMatchFrom(pattern, s string, skipLonger *bool, nesting int) bool {
	if nesting > maxGlobNesting {
		return false
	}
	p, n := 0, 0
	for p < len(pattern) {
		switch pattern[p] {
		case '*':
			for p+1 < len(pattern) && pattern[p+1] == '*' {
				p++
			}
			if p+1 == len(pattern) {
				return true
			}
			for i := n; i <= len(s); i++ {
				if globMatchFrom(pattern[p+1:], s[i:], skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
			}
			*skipLonger = true
			return false
		case '?':
			if n >= len(s) {
				return false
			}
			n++
		case '[':
			if n >= len(s) {
				return false
			}
			p++
			not := p < len(pattern) && pattern[p] == '^'
			if not {
				p++
			}
			match := false
			for p < len(pattern) && pattern[p] != ']' {
				switch {
				case pattern[p] == '\\' && p+1 < len(pattern):
					p++
					match = match || pattern[p] == s[n]
				case p+2 < len(pattern) && pattern[p+1] == '-':
					lo, hi := pattern[p], pattern[p+2]
					if lo > hi {
						lo, hi = hi, lo
					}
					match = match || (s[n] >= lo && s[n] <= hi)
					p += 2
				default:
					match = match || pattern[p] == s[n]
				}
				p++
			}
			if p >= len(pattern) {
				p-- // unterminated class: Redis treats the end as ']'
			}
			if match == not {
				return false
			}
			n++
		case '\\':
			if p+1 < len(pattern) {
				p++
			}
			fallthrough
		default:
			if n >= len(s) || pattern[p] != s[n] {
				return false
			}
			n++
		}
		p++
	}
	return n == len(s)
}
