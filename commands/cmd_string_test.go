package commands

import (
	"testing"

	"geoshard/shard"
)

func TestStringReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"set and get", []step{
			{"GET k", "$-1\r\n"},
			{"SET k v", "+OK\r\n"},
			{"GET k", "$1\r\nv\r\n"},
			{"SET k w GET", "$1\r\nv\r\n"},
			{"SET k x NX", "$-1\r\n"},
			{"SET k x NX GET", "$1\r\nw\r\n"},
			{"SET other x XX", "$-1\r\n"},
			{"SET k v EX 10", "+OK\r\n"},
			{"SET k v2 KEEPTTL", "+OK\r\n"},
			{"TTL k", ":10\r\n"},
			{"SET k v3", "+OK\r\n"},
			{"TTL k", ":-1\r\n"},
			{"SET k v EX 0", "-ERR invalid expire time in 'set' command\r\n"},
			{"SET k v EX 1 PX 1", "-ERR syntax error\r\n"},
		}},
		{"resp3 null", []step{
			{"HELLO 3", "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
			{"GET k", "_\r\n"},
			{"SET k v XX", "_\r\n"},
		}},
		{"set replaces a sorted set", []step{
			{"ZADD z 1 a", ":1\r\n"},
			{"EXPIRE z 100", ":1\r\n"},
			{"GET z", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{"SET z v GET", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{"ZCARD z", ":1\r\n"},
			{"SET z v", "+OK\r\n"},
			{"TYPE z", "+string\r\n"},
			{"TTL z", ":-1\r\n"},
			{"ZCARD z", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{"DEL z", ":1\r\n"},
			{"ZCARD z", ":0\r\n"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { newSession(t).run(tc.steps) })
	}
}

func TestSetDropsSortedSetFromRouter(t *testing.T) {
	s := newSession(t)
	s.line("ZADD z 1 a 2 b")
	s.line("SET z v")
	if n := s.e.Router().Card(shard.Key{DB: 0, Name: "z"}); n != 0 {
		t.Fatalf("router still holds %d members of a key SET replaced", n)
	}
	if got := s.do("SET", "bin", "a\x00\r\nb"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if got := s.do("GET", "bin"); got != "$5\r\na\x00\r\nb\r\n" {
		t.Fatalf("binary value came back as %q", got)
	}
}

// The value is copied: the server reuses its read buffer.
func TestSetCopiesValue(t *testing.T) {
	s := newSession(t)
	args := [][]byte{[]byte("SET"), []byte("k"), []byte("value")}
	s.e.Exec(s.c, args)
	copy(args[2], "XXXXX")
	if got := s.line("GET k"); got != "$5\r\nvalue\r\n" {
		t.Fatalf("GET after the argument buffer changed: %q", got)
	}
}

// SET's options, their conflicts and GET, as redis-server 7.0.15 answers
// them; see cmd_captured_test.go.
func TestSetOptions(t *testing.T) { runCaptured(t, setOptionScripts) }

var setOptionScripts = []capturedScript{
	{"SET options", false, []step{
		{"SET k v NX XX", "-ERR syntax error\r\n"},
		{"SET k v EX 10 PX 100", "-ERR syntax error\r\n"},
		{"SET k v EX 10 KEEPTTL", "-ERR syntax error\r\n"},
		{"SET k v EX", "-ERR syntax error\r\n"},
		{"SET k v EX 0", "-ERR invalid expire time in 'set' command\r\n"},
		{"SET k v EX -1", "-ERR invalid expire time in 'set' command\r\n"},
		{"SET k v EX x", "-ERR value is not an integer or out of range\r\n"},
		{"SET k v PX 9223372036854775807", "-ERR invalid expire time in 'set' command\r\n"},
		{"SET k v EX 9223372036854775807", "-ERR invalid expire time in 'set' command\r\n"},
		{"SET k v GET", "$-1\r\n"},
		{"SET k w GET", "$1\r\nv\r\n"},
		{"SET k v NX GET", "$1\r\nw\r\n"},
		{"SET k x XX GET EX 100", "$1\r\nw\r\n"},
		{"TTL k", ":100\r\n"},
		{"SET k y KEEPTTL", "+OK\r\n"},
		{"TTL k", ":100\r\n"},
		{"SET k z", "+OK\r\n"},
		{"TTL k", ":-1\r\n"},
		{"ZADD z 1 a", ":1\r\n"},
		{"SET z v GET", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"SET z v", "+OK\r\n"},
		{"TYPE z", "+string\r\n"},
	}},
}
