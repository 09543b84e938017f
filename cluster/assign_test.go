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

// only builds a placement without replicas.
func only(primary ...string) placement {
	return placement{primary: primary, replica: make([]string, len(primary)), synced: make([]bool, len(primary))}
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
			got, changed := plan(only(tt.cur...), tt.live, false, tt.maxMoves)
			if !slices.Equal(got.primary, tt.want) || changed != tt.changed {
				t.Errorf("plan(%v, %v) = %v, %v; want %v, %v", tt.cur, tt.live, got.primary, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestPlanReplicas(t *testing.T) {
	tests := []struct {
		name        string
		cur         placement
		live        []string
		wantPrimary []string
		wantReplica []string
	}{
		{"replicas go to another node, fewest first", only("a", "a", "b", "b"), []string{"a", "b", "c"},
			[]string{"a", "a", "b", "b"}, []string{"b", "c", "a", "a"}},
		{"a dead primary's replica takes over, a new replica is picked",
			placement{primary: []string{"a", "b", "c"}, replica: []string{"b", "c", "a"}, synced: []bool{true, true, true}},
			[]string{"a", "b"}, []string{"a", "b", "a"}, []string{"b", "a", "b"}},
		{"a dead replica is replaced", placement{primary: []string{"a", "b"}, replica: []string{"c", "c"}, synced: []bool{true, true}},
			[]string{"a", "b"}, []string{"a", "b"}, []string{"b", "a"}},
		{"one node: no replica", placement{primary: []string{"a", "b"}, replica: []string{"b", "a"}, synced: []bool{true, true}},
			[]string{"a"}, []string{"a", "a"}, []string{"", ""}},
		{"a planned move copies first: the new node becomes a replica",
			placement{primary: []string{"a", "a", "a", "b"}, replica: []string{"b", "b", "b", "a"}, synced: []bool{true, true, true, true}},
			[]string{"a", "b", "c"}, []string{"a", "a", "a", "b"}, []string{"b", "b", "c", "a"}},
		{"a filled replica swaps with the primary",
			placement{primary: []string{"a", "a", "a", "b"}, replica: []string{"b", "b", "c", "a"}, synced: []bool{true, true, true, true}},
			[]string{"a", "b", "c"}, []string{"a", "a", "c", "b"}, []string{"b", "b", "a", "a"}},
		{"no planned move while a copy is under way",
			placement{primary: []string{"a", "a", "a", "b"}, replica: []string{"b", "b", "c", "a"}, synced: []bool{true, true, false, true}},
			[]string{"a", "b", "c"}, []string{"a", "a", "a", "b"}, []string{"b", "b", "c", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := plan(tt.cur, tt.live, true, 2)
			if !slices.Equal(got.primary, tt.wantPrimary) || !slices.Equal(got.replica, tt.wantReplica) {
				t.Errorf("plan = %v / %v; want %v / %v", got.primary, got.replica, tt.wantPrimary, tt.wantReplica)
			}
		})
	}
}

// settle runs plan until nothing changes, filling every new replica at
// once, and checks no step moves a primary to a node that was not its
// filled replica (copy before switch, except from a dead node).
func settle(t *testing.T, cur placement, live []string) placement {
	t.Helper()
	for step := 0; step < 60; step++ {
		next, changed := plan(cur, live, true, 2)
		if !changed {
			return cur
		}
		for i := range next.primary {
			was := cur.primary[i]
			if next.primary[i] != was && slices.Contains(live, was) && was != "" &&
				!(cur.replica[i] == next.primary[i] && cur.synced[i]) {
				t.Fatalf("step %d: shard %d moved from %s to %s without a filled replica there", step, i, was, next.primary[i])
			}
		}
		for i := range next.synced {
			next.synced[i] = next.replica[i] != ""
		}
		cur = next
	}
	t.Fatalf("plan did not settle: %v / %v", cur.primary, cur.replica)
	return cur
}

func TestPlanConverges(t *testing.T) {
	cur := only(make([]string, 11)...)
	live := []string{"a", "b", "c"}
	cur = settle(t, cur, live)
	check := func() {
		t.Helper()
		for _, l := range []map[string]int{loads(cur.primary), loads(cur.replica)} {
			for _, n := range live {
				if l[n] < len(cur.primary)/len(live) || l[n] > (len(cur.primary)+len(live)-1)/len(live) {
					t.Fatalf("loads %v not balanced: %v / %v", l, cur.primary, cur.replica)
				}
			}
		}
		for i := range cur.primary {
			if cur.primary[i] == cur.replica[i] || cur.replica[i] == "" {
				t.Fatalf("shard %d: primary %s replica %s", i, cur.primary[i], cur.replica[i])
			}
		}
	}
	check()
	// A fourth node joins: it is filled, then takes primaries over.
	live = append(live, "d")
	cur = settle(t, cur, live)
	check()
	// A node dies: its replicas take over at once, nothing is left empty.
	live = []string{"a", "b", "d"}
	next, _ := plan(cur, live, true, 2)
	for i := range next.primary {
		if cur.primary[i] == "c" && next.primary[i] != cur.replica[i] {
			t.Fatalf("shard %d of dead c went to %s, not its replica %s", i, next.primary[i], cur.replica[i])
		}
	}
	cur = settle(t, next, live)
	check()
}
