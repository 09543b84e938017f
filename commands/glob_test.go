package commands

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGlobMatch: Redis 7.0.15's answers (checked with KEYS against
// redis-server), including its nesting limit of 1000 '*'.
func TestGlobMatch(t *testing.T) {
	long := strings.Repeat("a", 1200)
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"a*b", "ab", true},
		{"a*?", "a", false},
		{"h[^e]llo", "hallo", true},
		{"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hallo", true},
		{`h\*llo`, "h*llo", true},
		{"[abc", "a", true},
		{strings.Repeat("*a", 11) + "*b", strings.Repeat("x", 30), false},
		{strings.Repeat("*a", 11) + "*b", strings.Repeat("a", 30) + "b", true},
		{strings.Repeat("*a", 1000) + "*", long, true},
		{strings.Repeat("*a", 1000), long, true},
		{strings.Repeat("*a", 1001) + "*", long, false},
		{strings.Repeat("*a", 1001), long, false},
	} {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%.40q, %.40q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// TestGlobMatchSameAsExhaustive: cutting the search short never changes
// an answer: random small patterns against random strings get what trying
// every split gets.
func TestGlobMatchSameAsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "*", "?", "[ab]", "[^a]", `\*`, "**"}
	for range 200000 {
		var p strings.Builder
		for range rng.IntN(8) {
			p.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := make([]byte, rng.IntN(8))
		for i := range s {
			s[i] = "ab*"[rng.IntN(3)]
		}
		if got, want := globMatch(p.String(), string(s)), exhaustiveGlob(p.String(), string(s)); got != want {
			t.Fatalf("globMatch(%q, %q) = %v, exhaustive search says %v", p.String(), s, got, want)
		}
	}
}

// exhaustiveGlob is the matcher before the skipLongerMatches cut: every
// split of every '*' tried.
func exhaustiveGlob(pattern, s string) bool {
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
				if exhaustiveGlob(pattern[p+1:], s[i:]) {
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

func BenchmarkGlobManyStars(b *testing.B) {
	pattern, key := strings.Repeat("*a", 11)+"*b", strings.Repeat("x", 30)
	for b.Loop() {
		globMatch(pattern, key)
	}
}
