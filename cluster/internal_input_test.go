package cluster

import (
	"strings"
	"testing"
	"time"

	"geoshard/router"
)

// busWords splits a bus command's words (after its password and version).
func busWords(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

// serveBounded runs one internal command in its own goroutine and fails
// the test, instead of hanging it, when the command does not answer.
func serveBounded(t *testing.T, r *router.Router, tb *Table, name, args string) *wordReplier {
	t.Helper()
	w := &wordReplier{}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		serveInternal(r, name, tb, &parser{args: busWords(args)}, w)
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("%s %s panicked: %v", name, args, p)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %s did not answer in 20s", name, args)
	}
	if w.calls == 0 {
		t.Fatalf("%s %s answered nothing", name, args)
	}
	return w
}

// TestInternalSearchBadShape: a peer's SEARCH or NEAREST with a negative
// size or unit is refused. A negative radius spun the bus goroutine
// forever in the plan's step estimate (it doubles the radius until it
// passes the Earth's size). An infinite radius is a client's (Redis
// answers every member) and is served.
func TestInternalSearchBadShape(t *testing.T) {
	r := router.New(router.Config{})
	tb := testTable(3)
	// shard db key cut n lon lat kind radius width height unit
	for _, c := range []struct{ name, args string }{
		{"geoshard.search", "0 0 k 0 5 1 1 0 -1 0 0 1"},
		{"geoshard.nearest", "0 0 k 0 5 1 1 0 -1 0 0 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 0 -inf 0 0 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 1 0 -2 3 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 1 0 2 -3 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 0 100 0 0 -1"},
	} {
		w := serveBounded(t, r, tb, c.name, c.args)
		if !strings.Contains(w.err, "bad search") {
			t.Errorf("%s %s answered %q, want a bad search error", c.name, c.args, w.err)
		}
	}
	// A search's trailing word is since (router/departures.go).
	if w := serveBounded(t, r, tb, "geoshard.search", "0 0 k 0 5 1 1 0 100 0 0 1 soon"); !strings.Contains(w.err, "bad integer") {
		t.Errorf("a SEARCH with since \"soon\" answered %q, want a bad integer error", w.err)
	}
	for _, c := range []struct{ name, args string }{
		{"geoshard.search", "0 0 k 0 5 1 1 0 100 0 0 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 0 0 0 0 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 0 +inf 0 0 1"},
		{"geoshard.nearest", "0 0 k 0 5 1 1 0 +inf 0 0 0.3048"},
		{"geoshard.search", "0 0 k 0 5 1 1 1 0 +inf +inf 1"},
		{"geoshard.search", "0 0 k 0 5 1 1 1 0 2 3 1000"},
		{"geoshard.nearest", "0 0 k 0 5 1 1 0 100 0 0 0.3048"},
		{"geoshard.search", "0 0 k 0 5 0 0 2 0 0 0 1 3 0 0 1 1 2 0"},
		{"geoshard.search", "0 0 k 0 5 1 1 0 100 0 0 1 1"},
		{"geoshard.nearest", "0 0 k 0 5 1 1 0 100 0 0 1 1"},
	} {
		if w := serveBounded(t, r, tb, c.name, c.args); w.err != "" {
			t.Errorf("%s %s answered %q, want hits", c.name, c.args, w.err)
		}
	}
}
