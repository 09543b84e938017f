package commands

// globMatch matches s against a Redis glob pattern (stringmatchlen):
// * ? [abc] [^a-z] and \ escapes.
func globMatch(pattern, s string) bool {
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
				if globMatch(pattern[p+1:], s[i:]) {
					return true
				}
			}
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
