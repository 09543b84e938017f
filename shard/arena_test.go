package shard

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Names under random adds and frees gives back every live name exactly,
// with empty, binary and long names among them; a string handed out keeps
// its bytes after its name is freed and the store compacted.
func TestNamesAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ns Names
	type entry struct {
		n Name
		s string
	}
	var model []entry           // Names may give equal Names to empty names
	held := map[string]string{} // a string from Get, and what it must still read
	randomName := func() string {
		switch rng.IntN(20) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("x", maxInChunk+1+rng.IntN(100))
		case 2:
			return string([]byte{0, 0x80, 0xff, byte(rng.IntN(256))})
		case 3:
			return strings.Repeat("y", 100+rng.IntN(300)) // a two-byte length
		}
		return fmt.Sprintf("driver:%d", rng.IntN(1e6))
	}
	for i := range 60000 {
		if rng.IntN(3) == 0 && len(model) > 0 {
			j := rng.IntN(len(model))
			e := model[j]
			got := ns.Get(e.n)
			if got != e.s {
				t.Fatalf("step %d: Get(%v) = %.20q, want %.20q", i, e.n, got, e.s)
			}
			if len(held) < 1000 {
				held[got] = strings.Clone(e.s)
			}
			ns.Free(e.n)
			model[j] = model[len(model)-1]
			model = model[:len(model)-1]
			continue
		}
		name := randomName()
		n := ns.Add(name)
		if rng.IntN(2) == 0 {
			n = Unpack(n.Pack()) // as the router's owner table keeps it
		}
		model = append(model, entry{n, name})
		if ns.Wasteful() {
			// What an owner does: copy the live names, refer to the copies.
			var fresh Names
			for j := range model {
				model[j].n = fresh.Add(ns.Get(model[j].n))
			}
			ns = fresh
		}
	}
	for _, e := range model {
		if got := ns.Get(e.n); got != e.s {
			t.Fatalf("Get(%v) = %.20q, want %.20q", e.n, got, e.s)
		}
	}
	for got, want := range held {
		if got != want {
			t.Fatalf("a freed name's string changed: %.20q, want %.20q", got, want)
		}
	}
	live := 0
	for _, e := range model {
		live += len(e.s)
	}
	if ns.Bytes() > 3*live+2*chunkSize {
		t.Fatalf("store holds %d bytes for %d live", ns.Bytes(), live)
	}
}

// A set that sees many more members come and go than it holds compacts its
// names and still finds every member; a stale hint never hits a freed slot,
// not even for the empty name.
func TestSetChurnCompacts(t *testing.T) {
	s := newSet()
	model := map[string]float64{}
	score := func(i int) float64 { return float64(i % 1000) }
	for i := range 40000 {
		name := fmt.Sprintf("churning-driver-%08d", i)
		s.put(Entry{Member: name, Score: score(i), Stamp: int64(i)})
		model[name] = score(i)
		if i >= 500 {
			old := fmt.Sprintf("churning-driver-%08d", i-500)
			if _, ok := s.delete(old); !ok {
				t.Fatalf("delete %s: not found", old)
			}
			delete(model, old)
		}
	}
	if s.names.Bytes() > 4*compactMin {
		t.Fatalf("names hold %d bytes for %d members: no compaction", s.names.Bytes(), len(model))
	}
	for name, sc := range model {
		if it, ok := s.get(name); !ok || it.score != sc || s.member(it) != name {
			t.Fatalf("get %s after churn: %v %v", name, it, ok)
		}
	}
	_, _, at := s.putHashSlot(Entry{Member: "", Score: 1}, Hash(""))
	s.delete("")
	if _, existed, _ := s.putSlot(Entry{Member: "", Score: 2}, at, Hash("")); existed {
		t.Fatal("a stale slot found the deleted empty member")
	}
}
