package cluster

import (
	"slices"
	"testing"
)

func loads(owners []string) map[string]int {
	m := map[string]int{}
	for _, o := range owners {
		m[o]++
	}
	return m
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name     string
		cur      []string
		live     []string
		maxMoves int
		want     []string
		changed  bool
	}{
		{"fresh cluster", []string{"", "", "", ""}, []string{"a", "b"}, 2, []string{"a", "b", "a", "b"}, true},
		{"no live node keeps the map", []string{"a", "b"}, nil, 2, []string{"a", "b"}, false},
		{"balanced stays", []string{"a", "b", "a"}, []string{"a", "b"}, 2, []string{"a", "b", "a"}, false},
		{"dead node's shards move, others stay", []string{"a", "b", "c", "a", "b", "c"}, []string{"a", "b"}, 0,
			[]string{"a", "b", "a", "a", "b", "b"}, true},
		{"join moves a few at a time", []string{"a", "a", "a", "a", "a", "a"}, []string{"a", "b"}, 2,
			[]string{"a", "a", "a", "a", "b", "b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := plan(tt.cur, tt.live, tt.maxMoves)
			if !slices.Equal(got, tt.want) || changed != tt.changed {
				t.Errorf("plan(%v, %v) = %v, %v; want %v, %v", tt.cur, tt.live, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestPlanConverges(t *testing.T) {
	cur := make([]string, 11)
	live := []string{"a", "b", "c"}
	for step := 0; step < 20; step++ {
		next, changed := plan(cur, live, 2)
		if !changed {
			break
		}
		cur = next
	}
	l := loads(cur)
	for _, n := range live {
		if l[n] < 3 || l[n] > 4 {
			t.Fatalf("loads %v not balanced", l)
		}
	}
	// A fourth node joins: a few shards at a time until balanced.
	live = append(live, "d")
	for step := 0; step < 20; step++ {
		next, changed := plan(cur, live, 2)
		if !changed {
			break
		}
		moved := 0
		for i := range next {
			if next[i] != cur[i] {
				moved++
			}
		}
		if moved > 2 {
			t.Fatalf("step %d moved %d shards", step, moved)
		}
		cur = next
	}
	if l := loads(cur); l["d"] < 2 {
		t.Fatalf("joined node got %d shards: %v", l["d"], l)
	}
}
