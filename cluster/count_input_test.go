package cluster

import (
	"encoding/binary"
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
	args := byteWords(words)
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
// (an old frame, without it, records none; a bad shard is refused), and
// COUNTM answers its count, the copies of each member asked it counted,
// the members it names (the marked one) and that it named them all; a
// malformed word of members asked is refused.
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
	if w := serveWords(t, r, tb, "geoshard.put", "0", "0", "k", "m", "5", at(100)); w.err != "" {
		t.Fatal(w.err)
	}
	word := func(ms ...string) string { return string(appendMembersWire(nil, ms)) }
	newest := func(flag byte, stamp int64) string {
		return string(binary.LittleEndian.AppendUint64([]byte{flag}, uint64(stamp)))
	}
	for _, c := range []struct {
		name  string
		words []string
		want  []any // the answer's words; nil: an error
	}{
		{"nothing asked", []string{"0", "k", "0", "0", "-inf", "0", "+inf", "0", word(), "0", "1", "2"},
			[]any{int64(1), "", word("n"), int64(1)}},
		{"asked", []string{"0", "k", "0", "0", "-inf", "0", "+inf", "0", word("x", "m"), "0", "1", "2"},
			[]any{int64(0), "\x00" + newest(1, base+100), word("n"), int64(1)}},
		{"out of range", []string{"0", "k", "0", "0", "5", "1", "+inf", "0", word("m"), "0", "1", "2"},
			[]any{int64(0), newest(2, base+100), word("n"), int64(1)}},
		{"expired", []string{"0", "k", at(101), "0", "-inf", "0", "+inf", "0", word("m"), "0", "1", "2"},
			[]any{int64(0), "\x00", word("n"), int64(1)}},
		{"other shards", []string{"0", "k", "0", "0", "-inf", "0", "+inf", "0", word("m"), "1", "2"},
			[]any{int64(0), "\x00", word("n"), int64(1)}},
		{"cut short", []string{"0", "k", "0", "0", "-inf", "0", "+inf", "0", word("m")[:1], "0"}, nil},
		{"no word", []string{"0", "k", "0", "0", "-inf", "0", "+inf", "0"}, nil},
	} {
		w := &listReplier{}
		serveInternal(r, "geoshard.countm", tb, &parser{args: byteWords(c.words)}, w)
		if c.want == nil {
			if w.err == "" {
				t.Errorf("COUNTM %s: answered %v, want an error", c.name, w.words)
			}
			continue
		}
		if w.err != "" || !slices.Equal(w.words, c.want) {
			t.Errorf("COUNTM %s: %q (error %q), want %q", c.name, w.words, w.err, c.want)
		}
	}
	// The count of the code before, for nodes that still send it.
	if w := serveWords(t, r, tb, "geoshard.count", "0", "k", "0", "-inf", "0", "+inf", "0", "0", "1", "2"); w.n != 1 {
		t.Errorf("COUNT: %d (error %q), want 1", w.n, w.err)
	}
}

func byteWords(words []string) [][]byte {
	out := make([][]byte, len(words))
	for i, s := range words {
		out[i] = []byte(s)
	}
	return out
}

// listReplier keeps every word of an answer.
type listReplier struct {
	words []any
	err   string
}

func (l *listReplier) Array(int)           {}
func (l *listReplier) BulkString(s string) { l.words = append(l.words, s) }
func (l *listReplier) Bulk(b []byte)       { l.words = append(l.words, string(b)) }
func (l *listReplier) Int(n int64)         { l.words = append(l.words, n) }
func (l *listReplier) Error(msg string)    { l.err = msg }
