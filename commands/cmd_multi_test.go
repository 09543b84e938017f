package commands

import (
	"strconv"
	"sync"
	"testing"
)

func TestMultiReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"queue and run", []step{
			{"MULTI", "+OK\r\n"},
			{"ZADD z 1 a", "+QUEUED\r\n"},
			{"ZADD z x b", "+QUEUED\r\n"},
			{"ZRANGE z 0 -1 WITHSCORES", "+QUEUED\r\n"},
			{"EXEC", "*3\r\n:1\r\n-ERR value is not a valid float\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"},
			{"EXEC", "-ERR EXEC without MULTI\r\n"},
		}},
		{"rejected command aborts", []step{
			{"MULTI", "+OK\r\n"},
			{"SET a 1", "+QUEUED\r\n"},
			{"ZADD z", "-ERR wrong number of arguments for 'zadd' command\r\n"},
			{"MULTI", "-ERR MULTI calls can not be nested\r\n"},
			{"EXEC", "-EXECABORT Transaction discarded because of previous errors.\r\n"},
			{"EXISTS a", ":0\r\n"},
		}},
		{"discard", []step{
			{"DISCARD", "-ERR DISCARD without MULTI\r\n"},
			{"MULTI", "+OK\r\n"},
			{"SET a 1", "+QUEUED\r\n"},
			{"DISCARD", "+OK\r\n"},
			{"EXISTS a", ":0\r\n"},
		}},
		{"select inside", []step{
			{"MULTI", "+OK\r\n"},
			{"SELECT 2", "+QUEUED\r\n"},
			{"SET a 1", "+QUEUED\r\n"},
			{"EXEC", "*2\r\n+OK\r\n+OK\r\n"},
			{"EXISTS a", ":1\r\n"},
			{"SELECT 0", "+OK\r\n"},
			{"EXISTS a", ":0\r\n"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { newSession(t).run(tc.steps) })
	}
}

// Queued arguments are copies: the server reuses its read buffer.
func TestMultiCopiesArguments(t *testing.T) {
	s := newSession(t)
	s.line("MULTI")
	args := [][]byte{[]byte("SET"), []byte("key"), []byte("one")}
	s.e.Exec(s.c, args)
	copy(args[1], "xxx")
	copy(args[2], "two")
	s.line("EXEC")
	if got := s.line("GET key"); got != "$3\r\none\r\n" {
		t.Fatalf("GET key after EXEC = %q", got)
	}
}

// EXEC runs its commands with the keyspace held alone: a concurrent
// reader sees all of a transaction's writes or none.
func TestExecIsAtomic(t *testing.T) {
	s := newSession(t)
	reader := s.another()
	const rounds = 200
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			s.line("MULTI")
			s.line("ZADD z " + strconv.Itoa(i) + " a")
			s.line("ZADD z " + strconv.Itoa(i) + " b")
			s.line("EXEC")
		}
	}()
	for i := 0; i < rounds; i++ {
		r, _ := parseReply(reader.line("ZMSCORE z a b"))
		if len(r.kids) == 2 && r.kids[0].raw != r.kids[1].raw {
			t.Fatalf("read half a transaction: %q", r.raw)
		}
	}
	wg.Wait()
}

// Commands Redis flags no_multi are refused inside MULTI and spoil it.
func TestNoMultiCommands(t *testing.T) {
	s := newSession(t)
	s.run([]step{
		{"MULTI", "+OK\r\n"},
		{"SAVE", "-ERR Command not allowed inside a transaction\r\n"},
		{"PING", "+QUEUED\r\n"},
		{"EXEC", "-EXECABORT Transaction discarded because of previous errors.\r\n"},
	})
}
