package cluster

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// wordReplier keeps what a handler answered.
type wordReplier struct {
	bulk  []byte
	err   string
	n     int64
	calls int
	// replies counts whole replies; open is the elements each array
	// begun still waits for.
	replies int
	open    []int
}

func (w *wordReplier) Array(n int) {
	w.calls++
	if n == 0 {
		w.done()
		return
	}
	w.open = append(w.open, n)
}
func (w *wordReplier) BulkString(s string) { w.calls++; w.bulk = []byte(s); w.done() }
func (w *wordReplier) Bulk(b []byte)       { w.calls++; w.bulk = slices.Clone(b); w.done() }
func (w *wordReplier) Int(n int64)         { w.calls++; w.n = n; w.done() }
func (w *wordReplier) Error(msg string)    { w.calls++; w.err = msg; w.done() }

// done ends one element: of the innermost open array, or a whole reply.
func (w *wordReplier) done() {
	for len(w.open) > 0 {
		if w.open[len(w.open)-1]--; w.open[len(w.open)-1] > 0 {
			return
		}
		w.open = w.open[:len(w.open)-1]
	}
	w.replies++
}

// FuzzBatchWords feeds a peer's batched words (GETPUT, PUTMANY, PUTIF,
// FRESH and their answers, wire_batch.go) to their readers and to the handlers over
// a real router: a malformed or oversized word is refused, never a panic;
// a word that reads writes back to the same puts and names; and what was
// read does not change when the message's buffer is reused afterwards (a
// name aliasing the buffer would be a silent corruption of stored names).
func FuzzBatchWords(f *testing.F) {
	es := []shard.Entry{
		shard.NewEntry("driver:1", geo.Encode(4.9, 52.37), 1764600000000000000),
		shard.NewEntry("", 0, 1),
		shard.NewEntry(strings.Repeat("é", 200), geo.Encode(-179.9, -85), math.MaxInt64),
	}
	puts := appendPutsWire(nil, []shard.ID{0, 2, 1}, es)
	members := appendMembersWire(nil, []string{"driver:1", "", strings.Repeat("m", 300)})
	copies := appendCopiesWire(nil, []router.Copy{{Shard: 1, Score: 1.5, Stamp: 9}, {}, {Shard: 2, Stamp: 3, By: 4}},
		[]bool{true, false, true})
	f.Add(puts, members, copies, uint8(2))
	f.Add(puts[:len(puts)-3], members[:4], copies[:5], uint8(1))
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, []byte{0xff, 0x01}, []byte{2}, uint8(0))
	f.Fuzz(func(t *testing.T, puts, members, answer []byte, n uint8) {
		tb := testTable(3)
		checkPutsWord(t, tb, puts)
		checkMembersWord(t, members)
		decodeCopiesWire(string(answer), int(n))
		decodePutIfWire(string(answer), int(n))
		decodeHitsWire(string(answer))
		decodeEntriesWire(string(answer))
		r := router.New(router.Config{})
		k := []byte("k")
		for _, c := range []struct {
			name  string
			serve func(*router.Router, *Table, *parser, Replier)
			args  [][]byte
		}{
			{"GETPUT", internalGetPut, [][]byte{[]byte("0"), k, []byte("0"), []byte("2"), []byte("0"), []byte("1"), members, puts}},
			{"PUTMANY", internalPutMany, [][]byte{[]byte("0"), k, puts}},
			{"PUTIF", internalPutIf, [][]byte{[]byte("0"), k, []byte("0000"), []byte("0"), puts}},
			{"FRESH", internalFresh, [][]byte{[]byte("0"), k, members, answer}},
			{"GIVEWAY", internalGiveWay, [][]byte{[]byte("0"), k, members, []byte("5"), answer, []byte("1")}},
		} {
			var w wordReplier
			c.serve(r, tb, &parser{args: slices.Clone(c.args)}, &w)
			if w.replies != 1 || len(w.open) != 0 {
				t.Fatalf("%s answered %d whole replies (%d calls, %d arrays open)", c.name, w.replies, w.calls, len(w.open))
			}
		}
	})
}

// checkPutsWord reads a word of puts, checks it writes back to what was
// read, and that overwriting the word leaves what was read as it was.
func checkPutsWord(t *testing.T, tb *Table, word []byte) {
	buf := slices.Clone(word)
	p := &parser{args: [][]byte{buf}}
	ids, es := p.putsWire(tb)
	if p.bad != "" {
		return
	}
	kept := make([]string, len(es))
	for i, e := range es {
		kept[i] = strings.Clone(e.Member)
	}
	for i := range buf {
		buf[i] = 'X' // the bus reuses a message's buffer for the next one
	}
	for i, e := range es {
		if e.Member != kept[i] {
			t.Fatalf("put %d's name %q changed to %q with the message's buffer", i, kept[i], e.Member)
		}
	}
	back := &parser{args: [][]byte{appendPutsWire(nil, ids, es)}}
	ids2, es2 := back.putsWire(tb)
	if back.bad != "" || !slices.Equal(ids, ids2) || len(es) != len(es2) {
		t.Fatalf("puts %v read back as %v (%s)", ids, ids2, back.bad)
	}
	for i := range es {
		a, b := es[i], es2[i]
		if a.Member != b.Member || math.Float64bits(a.Score) != math.Float64bits(b.Score) || a.Stamp != b.Stamp {
			t.Fatalf("put %d %+v read back as %+v", i, a, b)
		}
	}
}

// checkMembersWord is checkPutsWord for a word of names.
func checkMembersWord(t *testing.T, word []byte) {
	buf := slices.Clone(word)
	p := &parser{args: [][]byte{buf}}
	names := p.membersWire()
	if p.bad != "" {
		return
	}
	kept := slices.Clone(names)
	for i := range kept {
		kept[i] = strings.Clone(kept[i])
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if !reflect.DeepEqual(names, kept) {
		t.Fatalf("names %q changed to %q with the message's buffer", kept, names)
	}
	back := &parser{args: [][]byte{appendMembersWire(nil, names)}}
	if got := back.membersWire(); back.bad != "" || !slices.Equal(got, names) {
		t.Fatalf("names %q read back as %q (%s)", names, got, back.bad)
	}
}
