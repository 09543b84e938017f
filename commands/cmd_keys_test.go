package commands

import (
	"strings"
	"testing"
)

// expireNow makes a key's TTL run out without waiting.
func (s *session) expireNow(key string) {
	s.e.mu.Lock()
	s.e.dbs[s.c.db].expires[key] = nowMS() - 1
	s.e.mu.Unlock()
}

func TestKeysReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"type and exists", []step{
			{"SET s v", "+OK\r\n"},
			{"ZADD z 1 a", ":1\r\n"},
			{"TYPE s", "+string\r\n"},
			{"TYPE z", "+zset\r\n"},
			{"TYPE nokey", "+none\r\n"},
			{"EXISTS s z nokey s", ":3\r\n"},
		}},
		{"rename keeps members and TTL", []step{
			{"ZADD z 1 a 2 b", ":2\r\n"},
			{"EXPIRE z 100", ":1\r\n"},
			{"SET dst v", "+OK\r\n"},
			{"RENAME z dst", "+OK\r\n"},
			{"TTL dst", ":100\r\n"},
			{"ZRANGE dst 0 -1", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
			{"EXISTS z", ":0\r\n"},
			{"RENAMENX dst dst", ":0\r\n"},
		}},
		{"rename drops the TTL of what it replaces", []step{
			{"SET a 1", "+OK\r\n"},
			{"SET b 2", "+OK\r\n"},
			{"EXPIRE b 100", ":1\r\n"},
			{"RENAME a b", "+OK\r\n"},
			{"TTL b", ":-1\r\n"},
			{"GET b", "$1\r\n1\r\n"},
		}},
		{"expire options", []step{
			{"SET k v", "+OK\r\n"},
			{"EXPIRE k 100 GT", ":0\r\n"},
			{"EXPIRE k 100 LT", ":1\r\n"},
			{"EXPIRE k 200 GT", ":1\r\n"},
			{"EXPIRE k 300 NX", ":0\r\n"},
			{"PEXPIRE k 5000 XX", ":1\r\n"},
			{"TTL k", ":5\r\n"},
			{"EXPIRE k -1", ":1\r\n"},
			{"EXISTS k", ":0\r\n"},
		}},
		{"flushdb leaves other databases", []step{
			{"SET a 1", "+OK\r\n"},
			{"SELECT 5", "+OK\r\n"},
			{"ZADD z 1 m", ":1\r\n"},
			{"FLUSHDB", "+OK\r\n"},
			{"DBSIZE", ":0\r\n"},
			{"SELECT 0", "+OK\r\n"},
			{"DBSIZE", ":1\r\n"},
			{"FLUSHALL ASYNC", "+OK\r\n"},
			{"DBSIZE", ":0\r\n"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { newSession(t).run(tc.steps) })
	}
}

// A key whose TTL ran out is gone for every command, before any
// background cycle deletes it.
func TestExpiredKeysAreGone(t *testing.T) {
	s := newSession(t)
	s.run([]step{
		{"SET s v", "+OK\r\n"},
		{"ZADD z 1 a", ":1\r\n"},
		{"SET live v", "+OK\r\n"},
		{"EXPIRE s 100", ":1\r\n"},
		{"EXPIRE z 100", ":1\r\n"},
	})
	s.expireNow("s")
	s.expireNow("z")
	s.run([]step{
		{"KEYS *", "*1\r\n$4\r\nlive\r\n"},
		{"DBSIZE", ":1\r\n"},
		{"SCAN 0", "*2\r\n$1\r\n0\r\n*1\r\n$4\r\nlive\r\n"},
		{"INFO keyspace", "$44\r\n# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n\r\n"},
		{"EXISTS s z", ":0\r\n"},
		{"TTL z", ":-2\r\n"},
		{"ZCARD z", ":0\r\n"},
		{"ZADD z 2 b", ":1\r\n"},
		{"ZRANGE z 0 -1", "*1\r\n$1\r\nb\r\n"},
		{"TTL z", ":-1\r\n"},
	})
}

func bulkText(raw string) string {
	_, body, _ := strings.Cut(raw, "\r\n")
	return strings.TrimSuffix(body, "\r\n")
}
