package cluster

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"geoshard/geo"
	"geoshard/shard"
)

// TestWireBatchAllocations: reading a GETPUT's 500 names or 500 puts, and
// writing them, costs a few allocations whatever the count: a holder of
// a cold load of 50,000 made a string of every name it read (297,000
// allocations a load in BenchmarkColdLoad), and the words grew by
// doubling.
func TestWireBatchAllocations(t *testing.T) {
	tb := testTable(4)
	members := make([]string, 500)
	ids := make([]shard.ID, 500)
	es := make([]shard.Entry, 500)
	for i := range members {
		members[i] = fmt.Sprintf("driver:%d", i)
		ids[i] = shard.ID(i % 4)
		es[i] = shard.NewEntry(members[i], geo.Encode(4.9, 52.37), int64(i+1))
	}
	names, puts := appendMembersWire(nil, members), appendPutsWire(nil, ids, es)
	for _, c := range []struct {
		what string
		max  float64
		run  func()
	}{
		{"reading 500 names", 3, func() { (&parser{args: [][]byte{names}}).membersWire() }},
		{"reading 500 puts", 3, func() { (&parser{args: [][]byte{puts}}).putsWire(tb) }},
		{"writing 500 names", 2, func() { appendMembersWire(nil, members) }},
		{"writing 500 puts", 2, func() { appendPutsWire(nil, ids, es) }},
	} {
		if n := testing.AllocsPerRun(20, c.run); n > c.max {
			t.Errorf("%s: %.0f allocations, want at most %.0f", c.what, n, c.max)
		}
	}
}

// TestWirePutsLongName: a put's long name comes back whole and in a string
// of its own, not one pointing into the message, which a shard keeps as
// it comes (shard.Names keeps long names as strings) and which would hold
// the whole message alive.
func TestWirePutsLongName(t *testing.T) {
	long := strings.Repeat("l", ownNameLen+1)
	es := []shard.Entry{shard.NewEntry("short", 1, 1), shard.NewEntry(long, 2, 2)}
	word := appendPutsWire(nil, []shard.ID{0, 1}, es)
	p := &parser{args: [][]byte{word}}
	_, got := p.putsWire(testTable(2))
	if p.bad != "" || len(got) != 2 || got[0].Member != "short" || got[1].Member != long {
		t.Fatalf("read %+v (%s)", got, p.bad)
	}
	// The short name points into the message's string, the long one not:
	// their bytes are not within a message's length of each other.
	short, own := uintptr(unsafe.Pointer(unsafe.StringData(got[0].Member))), uintptr(unsafe.Pointer(unsafe.StringData(got[1].Member)))
	if own > short && own-short < uintptr(len(word)) {
		t.Errorf("the long name shares the message's string")
	}
}
