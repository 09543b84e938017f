package commands

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// SCAN's argument errors as redis-server 7.0.15 gives them; see
// cmd_captured_test.go.
func TestScanArguments(t *testing.T) { runCaptured(t, scanArgScripts) }

var scanArgScripts = []capturedScript{
	{"SCAN arguments", false, []step{
		{"SET a 1", "+OK\r\n"},
		{"SCAN 0 COUNT 0", "-ERR syntax error\r\n"},
		{"SCAN 0 COUNT x", "-ERR value is not an integer or out of range\r\n"},
		{"SCAN 0 COUNT", "-ERR syntax error\r\n"},
		{"SCAN 0 MATCH", "-ERR syntax error\r\n"},
		{"SCAN 0 NOSUCH x", "-ERR syntax error\r\n"},
		{"SCAN x", "-ERR invalid cursor\r\n"},
		{"SCAN 0 TYPE zset", "*2\r\n$1\r\n0\r\n*0\r\n"},
		{"SCAN 18446744073709551616", "-ERR invalid cursor\r\n"},
	}},
}

// scanAll runs a whole SCAN and returns every key it gave, in order.
func scanAll(t *testing.T, s *session, count int, between func(step int)) []string {
	t.Helper()
	var got []string
	cursor := "0"
	for i := 0; i < 1000; i++ {
		r, _ := parseReply(s.do("SCAN", cursor, "COUNT", fmt.Sprint(count)))
		if len(r.kids) != 2 {
			t.Fatalf("SCAN reply %q", r.raw)
		}
		cursor = bulkText(r.kids[0].raw)
		for _, k := range r.kids[1].kids {
			got = append(got, bulkText(k.raw))
		}
		if cursor == "0" {
			return got
		}
		if between != nil {
			between(i)
		}
	}
	t.Fatal("SCAN did not finish in 1000 calls")
	return nil
}

func TestScanVisitsEveryKeyOnce(t *testing.T) {
	s := newSession(t)
	var want []string
	for i := 0; i < 57; i++ {
		k := fmt.Sprintf("key:%d", i)
		want = append(want, k)
		if i%2 == 0 {
			s.do("SET", k, "v")
		} else {
			s.do("ZADD", k, "1", "m")
		}
	}
	got := scanAll(t, s, 5, nil)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("SCAN returned %d keys %v, want %d", len(got), got, len(want))
	}
}

// Keys present for the whole scan are returned even while others come
// and go between calls.
func TestScanWhileKeysChange(t *testing.T) {
	s := newSession(t)
	stable := map[string]bool{}
	for i := 0; i < 40; i++ {
		k := fmt.Sprintf("stable:%d", i)
		stable[k] = true
		s.do("SET", k, "v")
	}
	for i := 0; i < 40; i++ {
		s.do("SET", fmt.Sprintf("gone:%d", i), "v")
	}
	got := scanAll(t, s, 3, func(step int) {
		s.do("DEL", fmt.Sprintf("gone:%d", step))
		s.do("SET", fmt.Sprintf("new:%d", step), "v")
	})
	seen := map[string]int{}
	for _, k := range got {
		seen[k]++
	}
	for k := range stable {
		if seen[k] != 1 {
			t.Errorf("stable key %s returned %d times", k, seen[k])
		}
	}
}

func TestParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"+5", 5, true}, {"-1", 1<<64 - 1, true},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"+", 0, false}, {"x", 0, false}, {"+-1", 0, false},
		{"7\x00x", 7, true},
	} {
		got, ok := parseCursor([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestScanType: SCAN's TYPE filter tells a string from a geo key by the
// string map alone (a live name that is not a string is a geo key the
// nodes listed), with the answers Redis gives.
func TestScanType(t *testing.T) {
	s := newSession(t)
	s.line("SET str v")
	s.line("GEOADD geo 4.9 52.37 m")
	s.line("GEOADD gone 4.9 52.37 m")
	s.line("ZREM gone m")
	for _, tc := range []struct{ typ, want string }{
		{"zset", "geo"},
		{"ZSET", "geo"},
		{"string", "str"},
		{"hash", ""},
		{"none", ""},
	} {
		r, _ := parseReply(s.do("SCAN", "0", "COUNT", "100", "TYPE", tc.typ))
		var got []string
		for _, k := range r.kids[1].kids {
			got = append(got, bulkText(k.raw))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("SCAN 0 COUNT 100 TYPE %s = %q, want %q", tc.typ, got, tc.want)
		}
	}
}
