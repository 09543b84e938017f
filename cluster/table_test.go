package cluster

import (
	"sync/atomic"
	"testing"

	"geoshard/shard"
)

// TestTableReplicas: where a table sends reads and writes of a shard, by
// where its primary and replica are, whether the replica is filled, and
// which nodes fail health checks.
func TestTableReplicas(t *testing.T) {
	live := map[string]*peer{"a": {id: "a"}, "b": {id: "b"}, "c": {id: "c"}}
	owner := []string{"b", "b", "b", "a", "d", "d"}
	replica := []string{"c", "c", "a", "b", "c", "a"}
	filled := []bool{true, false, true, true, true, false}
	var failing atomic.Pointer[map[string]string]
	tb := newTable(7, "a", owner, replica, filled, live, false, "pw")
	tb.failing = &failing
	tests := []struct {
		name                  string
		bad                   map[string]string
		id                    shard.ID
		peer                  string // "" nil
		replicaLocal, isFill  bool
		replicaPeer           string
		holds, down, localPri bool
	}{
		{"remote primary, filled remote replica", nil, 0, "b", false, true, "c", false, false, false},
		{"unfilled replica", nil, 1, "b", false, false, "c", false, false, false},
		{"replica here", nil, 2, "b", true, true, "", true, false, false},
		{"primary here", nil, 3, "", false, true, "b", true, false, true},
		{"primary gone, filled replica live", nil, 4, "", false, true, "c", false, false, false},
		{"primary gone, replica here unfilled: down", nil, 5, "", true, false, "", true, true, false},
		{"failing primary, filled replica answers", map[string]string{"b": "x"}, 0, "", false, true, "c", false, false, false},
		{"failing primary, unfilled replica: primary still", map[string]string{"b": "x"}, 1, "b", false, false, "c", false, false, false},
		{"failing primary and replica: primary still", map[string]string{"b": "x", "c": "y"}, 0, "b", false, true, "c", false, false, false},
		{"failing primary, replica here", map[string]string{"b": "x"}, 2, "", true, true, "", true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := tt.bad
			failing.Store(&bad)
			p := tb.Peer(tt.id)
			if got := ""; p != nil && p.ID() != tt.peer || p == nil && tt.peer != got {
				t.Errorf("Peer = %v, want %q", p, tt.peer)
			}
			rl, rp, f := tb.ReplicaOf(tt.id)
			rid := ""
			if rp != nil {
				rid = rp.ID()
			}
			if rl != tt.replicaLocal || rid != tt.replicaPeer || f != tt.isFill {
				t.Errorf("ReplicaOf = %v %q %v, want %v %q %v", rl, rid, f, tt.replicaLocal, tt.replicaPeer, tt.isFill)
			}
			if tb.Holds(tt.id) != tt.holds || tb.Down(tt.id) != tt.down || tb.Local(tt.id) != tt.localPri {
				t.Errorf("Holds %v Down %v Local %v, want %v %v %v", tb.Holds(tt.id), tb.Down(tt.id),
					tb.Local(tt.id), tt.holds, tt.down, tt.localPri)
			}
		})
	}
	// A node restarted since the assignment holds nothing of it.
	re := newTable(7, "a", owner, replica, filled, live, true, "pw")
	for i := range owner {
		if re.Holds(shard.ID(i)) {
			t.Errorf("restarted node holds shard %d", i)
		}
	}
}
