package shard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"geoshard/geo"
)

// A slab hands out slots in order and keeps every item where it was put,
// across chunk boundaries, after a reserve (whether the first chunk is
// still growing or not) and after a reset refills it.
func TestSlabKeepsItems(t *testing.T) {
	for _, tc := range []struct {
		name            string
		before, reserve int // pushes before the reserve, and its size
		reset           bool
	}{
		{"empty", 0, 3 * slabChunk, false},
		{"small first chunk", 3, 10, false},
		{"first chunk to full", 5, slabChunk, false},
		{"past the first chunk", slabChunk + 7, 2 * slabChunk, false},
		{"reset after two chunks", 2*slabChunk + 3, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b slab
			var model []item
			push := func(i int) {
				it := item{score: float64(i), stamp: int64(i)}
				if at := b.push(it); int(at) != len(model) {
					t.Fatalf("push %d: slot %d, want %d", i, at, len(model))
				}
				model = append(model, it)
			}
			for i := range tc.before {
				push(i)
			}
			if tc.reset {
				b.reset()
				model = model[:0]
			}
			b.reserve(tc.reserve)
			for i := range tc.reserve + slabChunk/2 {
				push(tc.before + i)
			}
			if b.len() != len(model) {
				t.Fatalf("len %d, want %d", b.len(), len(model))
			}
			for i, want := range model {
				if got := *b.at(uint32(i)); got != want {
					t.Fatalf("slot %d: %+v, want %+v", i, got, want)
				}
			}
			last := (b.len() - 1) >> slabBits
			for c, ch := range b.chunks {
				if c < last && (len(ch) != slabChunk || cap(ch) != slabChunk) {
					t.Fatalf("chunk %d of %d: len %d cap %d, want full", c, len(b.chunks), len(ch), cap(ch))
				}
				if c > last && len(ch) != 0 {
					t.Fatalf("chunk %d past the last slot's (%d) holds %d", c, last, len(ch))
				}
				if cap(ch) > slabChunk {
					t.Fatalf("chunk %d: cap %d past a chunk", c, cap(ch))
				}
			}
		})
	}
}

// A set over several chunks reuses the slots its deletes free, in any
// chunk, before it takes new ones; emptied and loaded again it starts
// from slot 0; and through all of it it agrees with a map.
func TestSetSlabReuseAcrossChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := newSet()
	model := map[string]Entry{}
	const n = 3*slabChunk + 100
	add := func(name string) {
		e := Entry{Member: name, Score: geo.Encode(4+rng.Float64(), 52+rng.Float64()), Stamp: rng.Int64N(1 << 40)}
		s.put(e)
		model[name] = e
	}
	for i := range n {
		add(fmt.Sprintf("d%d", i))
	}
	// Delete members on both sides of every chunk boundary and elsewhere.
	var gone []string
	for c := 1; c <= 3; c++ {
		for _, at := range []uint32{uint32(c*slabChunk - 1), uint32(c * slabChunk)} {
			gone = append(gone, s.name(at))
		}
	}
	for range 500 {
		gone = append(gone, s.name(uint32(rng.IntN(n))))
	}
	slices.Sort(gone)
	gone = slices.Compact(gone)
	for _, name := range gone {
		if _, ok := s.delete(name); !ok {
			t.Fatalf("delete %s: not found", name)
		}
		delete(model, name)
	}
	for i := range len(gone) {
		add(fmt.Sprintf("new%d", i))
	}
	if s.items.len() != n {
		t.Fatalf("slab holds %d slots after reusing %d freed ones, want %d", s.items.len(), len(gone), n)
	}
	checkSetModel(t, s, model)

	for name := range model {
		s.delete(name)
		delete(model, name)
	}
	es := make([]Entry, 0, 100)
	for i := range 100 {
		e := Entry{Member: fmt.Sprintf("again%d", i), Score: float64(i), Stamp: int64(i)}
		es, model[e.Member] = append(es, e), e
	}
	s.load(len(es), func(i int) Entry { return es[i] })
	if s.items.len() != len(es) {
		t.Fatalf("slab holds %d slots after a load into the emptied set, want %d", s.items.len(), len(es))
	}
	checkSetModel(t, s, model)
}

// checkSetModel fails t unless s holds exactly model's entries, by name
// and in score order.
func checkSetModel(t *testing.T, s *set, model map[string]Entry) {
	t.Helper()
	if s.len() != len(model) {
		t.Fatalf("len %d, want %d", s.len(), len(model))
	}
	for name, e := range model {
		if it, ok := s.get(name); !ok || it.score != e.Score || it.stamp != e.Stamp {
			t.Fatalf("get %s: %+v %v, want %+v", name, it, ok, e)
		}
	}
	n, last := 0, -1.0
	s.ascend(0, func(it *item) bool {
		if it.score < last {
			t.Fatalf("score order: %v after %v", it.score, last)
		}
		last = it.score
		n++
		return true
	})
	if n != len(model) {
		t.Fatalf("ascend visited %d of %d", n, len(model))
	}
}

// A key whose last member goes is dropped from its shard, and a key of the
// same name put again afterwards starts with an empty slab and holds only
// what it was given.
func TestShardSetDroppedAndRecreated(t *testing.T) {
	s, k := New(), Key{Name: "k"}
	for i := range slabChunk + 10 {
		s.Put(k, Entry{Member: fmt.Sprintf("m%d", i), Score: float64(i)})
	}
	for i := range slabChunk + 10 {
		if _, ok := s.Delete(k, fmt.Sprintf("m%d", i), 1<<62); !ok {
			t.Fatalf("delete m%d: not found", i)
		}
	}
	if s.sets[k] != nil {
		t.Fatal("the emptied key's set was kept")
	}
	s.Put(k, Entry{Member: "back", Score: 7, Stamp: 3})
	st := s.sets[k]
	if st == nil || st.items.len() != 1 || st.len() != 1 {
		t.Fatalf("recreated set: %+v", st)
	}
	if v, ok := s.ValueHash(k, "back", Hash("back")); !ok || v != (Value{7, 3}) {
		t.Fatalf("ValueHash back: %+v %v", v, ok)
	}
	if _, ok := s.ValueHash(k, "m5", Hash("m5")); ok {
		t.Fatal("a deleted member came back with the key")
	}
}
