package cluster

import (
	"slices"
	"testing"
	"time"

	"geoshard/router"
	"geoshard/shard"
)

// serveWords is serveBounded for words that may hold any byte (a binary
// word of marks).
func serveWords(t *testing.T, r *router.Router, tb *Table, name string, words ...string) *wordReplier {
	t.Helper()
	w := &wordReplier{}
	args := make([][]byte, len(words))
	for i, s := range words {
		args[i] = []byte(s)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s %q panicked: %v", name, words, p)
			}
		}()
		serveInternal(r, name, tb, &parser{args: args}, w)
	}()
	return w
}

// TestInternalArrivals: the owner notice's trailing shard records a mark
// (an old frame, without it, records none; a bad shard is refused), COUNTM
// answers the marks with its count, and LEFT counts the old copies the
// marks point to, as the count counted them.
func TestInternalArrivals(t *testing.T) {
	r := router.New(router.Config{PositionTTL: time.Minute})
	tb := testTable(3)
	k := shard.Key{Name: "k"}
	base := time.Now().UnixNano() // stamps a TTL ago would be dropped as expired
	at := func(d int64) string { return itoa(base + d) }
	for _, c := range []struct {
		name  string
		words []string
		err   bool
	}{
		{"old frame", []string{"0", "k", "n", "1", "5", at(300)}, false},
		{"expired", []string{"0", "k", "old", "1", "5", "300", "0"}, false},
		{"bad from", []string{"0", "k", "n", "1", "5", at(300), "3"}, true},
		{"negative from", []string{"0", "k", "n", "1", "5", at(300), "-1"}, true},
		{"from", []string{"0", "k", "n", "1", "5", at(300), "0"}, false},
	} {
		if w := serveWords(t, r, tb, "geoshard.owner", c.words...); (w.err != "") != c.err {
			t.Errorf("OWNER %s: error %q, want error %v", c.name, w.err, c.err)
		}
	}
	marks, whole := r.ArrivalsLocal(k, 0)
	if want := []router.Arrival{{Member: "n", From: 0, Stamp: base + 300}}; !slices.Equal(marks, want) || !whole {
		t.Fatalf("marks %v (whole %v), want %v", marks, whole, want)
	}
	for _, m := range []string{"m", "n"} {
		if w := serveWords(t, r, tb, "geoshard.put", "0", "0", "k", m, "5", at(100)); w.err != "" {
			t.Fatal(w.err)
		}
	}
	w := serveWords(t, r, tb, "geoshard.countm", "0", "k", "0", "-inf", "0", "+inf", "0", "0", "1", "2")
	if got, err := decodeMarksWire(string(w.bulk)); w.err != "" || err != nil || !slices.Equal(got, marks) || w.n != 1 {
		t.Errorf("COUNTM: marks %v (%v, %q), whole %d; want %v, 1", got, err, w.err, w.n, marks)
	}
	mark := func(stamp int64) string {
		return string(appendMarksWire(nil, []router.Arrival{{Member: "m", From: 0, Stamp: stamp}}))
	}
	// n's copy is one the owner notice told this node is superseded:
	// COUNTM left it out, and LEFT must not take it off again.
	for _, c := range []struct {
		name  string
		words []string
		want  int64
		err   bool
	}{
		{"older copy in range", []string{"0", "k", "0", "-inf", "0", "+inf", "0", mark(base + 300)}, 1, false},
		{"copy not older", []string{"0", "k", "0", "-inf", "0", "+inf", "0", mark(base + 100)}, 0, false},
		{"copy expired", []string{"0", "k", at(101), "-inf", "0", "+inf", "0", mark(base + 300)}, 0, false},
		{"copy out of range", []string{"0", "k", "0", "5", "1", "+inf", "0", mark(base + 300)}, 0, false},
		{"copy known superseded", []string{"0", "k", "0", "-inf", "0", "+inf", "0",
			string(appendMarksWire(nil, []router.Arrival{{Member: "n", From: 0, Stamp: base + 300}}))}, 0, false},
		{"no such member", []string{"0", "k", "0", "-inf", "0", "+inf", "0",
			string(appendMarksWire(nil, []router.Arrival{{Member: "x", From: 0, Stamp: base + 300}}))}, 0, false},
		{"cut short", []string{"0", "k", "0", "-inf", "0", "+inf", "0", mark(base + 300)[:5]}, 0, true},
		{"shard not held", []string{"0", "k", "0", "-inf", "0", "+inf", "0",
			string(appendMarksWire(nil, []router.Arrival{{Member: "m", From: 7, Stamp: base + 300}}))}, 0, true},
		{"words after", []string{"0", "k", "0", "-inf", "0", "+inf", "0", mark(base + 300), "1"}, 0, true},
		{"no marks word", []string{"0", "k", "0", "-inf", "0", "+inf", "0"}, 0, true},
	} {
		w := serveWords(t, r, tb, "geoshard.left", c.words...)
		if (w.err != "") != c.err || !c.err && w.n != c.want {
			t.Errorf("LEFT %s: %d (error %q), want %d (error %v)", c.name, w.n, w.err, c.want, c.err)
		}
	}
}
