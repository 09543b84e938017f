package cluster

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// testTable is a table of n shards, all held here.
func testTable(n int) *Table {
	t := &Table{local: make([]bool, n), held: make([]bool, n)}
	for i := range t.local {
		t.local[i], t.held[i] = true, true
	}
	return t
}

func TestWireBatchRoundTrip(t *testing.T) {
	tb := testTable(30)
	es := []shard.Entry{
		shard.NewEntry("driver:1", geo.Encode(4.9, 52.37), 1764600000000000000),
		shard.NewEntry("", 0, 1),
		shard.NewEntry(strings.Repeat("é", 200), geo.Encode(-179.9, -85), math.MaxInt64),
	}
	ids := []shard.ID{0, 29, 7}
	p := &parser{args: [][]byte{appendPutsWire(nil, ids, es), []byte("next")}}
	gotIDs, gotEs := p.putsWire(tb)
	if p.bad != "" || !reflect.DeepEqual(gotIDs, ids) || !reflect.DeepEqual(gotEs, es) || p.str() != "next" {
		t.Fatalf("puts: %v %+v (%s)", gotIDs, gotEs, p.bad)
	}
	members := []string{"a", "", strings.Repeat("m", 300)}
	p = &parser{args: [][]byte{appendMembersWire(nil, members)}}
	if got := p.membersWire(); p.bad != "" || !reflect.DeepEqual(got, members) {
		t.Fatalf("members: %q (%s)", got, p.bad)
	}
	cs := []router.Copy{{Shard: 3, Score: 1.5, Stamp: 9}, {}, {Shard: math.MaxUint16, Score: -0.25, Stamp: math.MaxInt64},
		{Shard: 4, Score: 2, Stamp: 5, By: 7}} // the last one gave way (router/giveway.go)
	oks := []bool{true, false, true, true}
	gotCs, gotOks, err := decodeCopiesWire(string(appendCopiesWire(nil, cs, oks)), 4)
	if err != nil || !reflect.DeepEqual(gotCs, cs) || !reflect.DeepEqual(gotOks, oks) {
		t.Fatalf("copies: %+v %v %v", gotCs, gotOks, err)
	}
	res := []router.PutIfResult{{Status: router.PutIfMissing}, {Status: router.PutIfSkipped, Old: 2.5},
		{Status: router.PutIfWritten, Old: math.Inf(-1)}}
	var b []byte
	for _, r := range res {
		b = appendPutIfWire(b, r)
	}
	if got, err := decodePutIfWire(string(b), 3); err != nil || !reflect.DeepEqual(got, res) {
		t.Fatalf("putifs: %+v %v", got, err)
	}
}

// TestWireBatchRefused: a word cut anywhere, with a byte changed, or
// naming a shard out of range is refused (never misread, never a panic).
func TestWireBatchRefused(t *testing.T) {
	tb := testTable(4)
	es := []shard.Entry{shard.NewEntry("driver:1", geo.Encode(4.9, 52.37), 17), shard.NewEntry("x", 1, 2)}
	puts := appendPutsWire(nil, []shard.ID{1, 3}, es)
	for n := 1; n < len(puts); n++ {
		p := &parser{args: [][]byte{puts[:n]}}
		if ids, _ := p.putsWire(tb); p.bad == "" && len(ids) != 1 {
			t.Errorf("puts cut at %d: %d puts, no error", n, len(ids))
		}
	}
	for _, c := range []struct {
		name string
		word []byte
	}{
		{"shard out of range", appendPutsWire(nil, []shard.ID{4}, es[:1])},
		{"huge shard", append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, puts[1:]...)},
		{"endless varint", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}},
	} {
		p := &parser{args: [][]byte{c.word}}
		if ids, _ := p.putsWire(tb); p.bad == "" {
			t.Errorf("%s: read %v, no error", c.name, ids)
		}
	}
	if p := (&parser{}); func() bool { ids, _ := p.putsWire(tb); return ids != nil }() || p.bad == "" {
		t.Errorf("missing word: no error")
	}
	p := &parser{args: [][]byte{{5, 'a'}}}
	if p.membersWire(); p.bad == "" {
		t.Errorf("member longer than the word: no error")
	}
	copies := string(appendCopiesWire(nil, []router.Copy{{Shard: 2, Score: 1, Stamp: 3}}, []bool{true}))
	for _, c := range []struct {
		s string
		n int
	}{{copies[:5], 1}, {copies, 2}, {copies + "\x00", 1}, {"\x02" + copies[1:], 1}, {"\x02" + copies[1:] + strings.Repeat("\x00", 8), 1},
		{"\x03" + copies[1:] + "\x01" + strings.Repeat("\x00", 7), 1}, {"", 1}} {
		if _, _, err := decodeCopiesWire(c.s, c.n); err == nil {
			t.Errorf("copies %q for %d members: no error", c.s, c.n)
		}
	}
	for _, s := range []string{"", "\x03" + strings.Repeat("\x00", 8), "\x01" + strings.Repeat("\x00", 9)} {
		if _, err := decodePutIfWire(s, 1); err == nil {
			t.Errorf("putif answer %q: no error", s)
		}
	}
}

// TestWireBatchAllocs: decoding a reply allocates the result only, and
// reading puts one name per member.
func TestWireBatchAllocs(t *testing.T) {
	tb := testTable(4)
	es := make([]shard.Entry, 100)
	ids := make([]shard.ID, 100)
	for i := range es {
		es[i] = shard.NewEntry("driver:"+itoa(int64(i)), geo.Encode(4.9, 52.37), int64(i+1))
	}
	word := appendPutsWire(nil, ids, es)
	allocs := testing.AllocsPerRun(20, func() {
		p := &parser{args: [][]byte{word}}
		p.putsWire(tb)
	})
	// 100 names plus the two slices growing (8 times each at most).
	if allocs > 100+16 {
		t.Errorf("reading 100 puts: %.0f allocations", allocs)
	}
	hits := string(encodeHits([]shard.Hit{{Entry: es[0]}, {Entry: es[1]}}))
	if allocs := testing.AllocsPerRun(20, func() { decodeHitsWire(hits) }); allocs > 2 {
		t.Errorf("decoding 2 hits from a string: %.0f allocations (names must not be copied)", allocs)
	}
}
