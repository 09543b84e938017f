package commands

import (
	"strconv"
	"sync"
	"testing"
)

func TestZsetReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"resp2 shapes", []step{
			{"ZADD z 1.1 a 2 b", ":2\r\n"},
			{"ZSCORE z a", "$18\r\n1.1000000000000001\r\n"},
			{"ZRANGE z 0 -1 WITHSCORES", "*4\r\n$1\r\na\r\n$18\r\n1.1000000000000001\r\n$1\r\nb\r\n$1\r\n2\r\n"},
			{"ZMSCORE z b nope", "*2\r\n$1\r\n2\r\n$-1\r\n"},
			{"ZADD z NX INCR 1 a", "$-1\r\n"},
			{"ZRANK z nope", "$-1\r\n"},
		}},
		{"resp3 shapes", []step{
			{"HELLO 3", ""}, // checked elsewhere
			{"ZADD z 1.1 a 2 b", ":2\r\n"},
			{"ZSCORE z a", ",1.1000000000000001\r\n"},
			{"ZRANGE z 0 -1 WITHSCORES", "*2\r\n*2\r\n$1\r\na\r\n,1.1000000000000001\r\n*2\r\n$1\r\nb\r\n,2\r\n"},
			{"ZRANGE z -inf +inf BYSCORE", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
			{"ZMSCORE z b nope", "*2\r\n,2\r\n_\r\n"},
			{"ZADD z NX INCR 1 a", "_\r\n"},
			{"ZADD z INCR -inf b", ",-inf\r\n"},
		}},
		{"scores", []step{
			{"ZADD z -0 a inf b -inf c 1e-310 d", ":4\r\n"},
			{"ZSCORE z a", "$1\r\n0\r\n"}, // stored as 0, as a small Redis set does
			{"ZSCORE z b", "$3\r\ninf\r\n"},
			{"ZSCORE z d", "$23\r\n9.9999999999999694e-311\r\n"},
			{"ZADD z INCR -inf b", "-ERR resulting score is not a number (NaN)\r\n"},
			{"ZADD z INCR -0 new", "$2\r\n-0\r\n"},
			{"ZRANGE z 0 -1", "*5\r\n$1\r\nc\r\n$1\r\na\r\n$3\r\nnew\r\n$1\r\nd\r\n$1\r\nb\r\n"},
		}},
		{"options", []step{
			{"ZADD z 5 a", ":1\r\n"},
			{"ZADD z GT CH 4 a", ":0\r\n"},
			{"ZADD z GT CH 6 a", ":1\r\n"},
			{"ZADD z LT CH 7 a 1 b", ":1\r\n"},
			{"ZADD z XX 1 c", ":0\r\n"},
			{"ZADD z XX LT INCR -1 a", "$1\r\n5\r\n"},
			{"ZADD z XX GT INCR -1 a", "$-1\r\n"},
			{"ZRANGE z 0 -1 WITHSCORES", "*4\r\n$1\r\nb\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n5\r\n"},
		}},
		{"last member takes the key and its TTL", []step{
			{"ZADD z 1 a 2 b", ":2\r\n"},
			{"EXPIRE z 100", ":1\r\n"},
			{"ZREM z a b c", ":2\r\n"},
			{"EXISTS z", ":0\r\n"},
			{"ZADD z 1 a", ":1\r\n"},
			{"TTL z", ":-1\r\n"},
		}},
		{"databases are apart", []step{
			{"ZADD z 1 a", ":1\r\n"},
			{"SELECT 1", "+OK\r\n"},
			{"ZCARD z", ":0\r\n"},
			{"ZADD z 1 a 2 b", ":2\r\n"},
			{"SELECT 0", "+OK\r\n"},
			{"ZCARD z", ":1\r\n"},
		}},
		{"geo members are sorted-set members", []step{
			{"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", ":2\r\n"},
			{"ZRANGE g 0 -1 WITHSCORES", "*4\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$7\r\nCatania\r\n$16\r\n3479447370796909\r\n"},
			{"ZRANK g Catania", ":1\r\n"},
			{"ZREM g Palermo", ":1\r\n"},
			{"GEOPOS g Palermo", "*1\r\n*-1\r\n"},
		}},
		{"bylex on one score", []step{
			{"ZADD l 0 a 0 b 0 c 0 d", ":4\r\n"},
			{"ZRANGEBYLEX l (a [c", "*2\r\n$1\r\nb\r\n$1\r\nc\r\n"},
			{"ZREVRANGEBYLEX l + (b LIMIT 1 5", "*1\r\n$1\r\nc\r\n"},
			{"ZRANGE l [c - BYLEX", "*0\r\n"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			for _, st := range tc.steps {
				got := s.line(st.cmd)
				if st.want != "" && got != st.want {
					t.Errorf("%s\n got %q\nwant %q", st.cmd, got, st.want)
				}
			}
		})
	}
}

// ZINCRBY and ZADD INCR hold the keyspace alone, so increments from many
// connections are never lost.
func TestZincrbyConcurrent(t *testing.T) {
	s := newSession(t)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		c := s.another()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if j%2 == 0 {
					c.line("ZINCRBY z 1 m")
				} else {
					c.line("ZADD z INCR 1 m")
				}
			}
		}()
	}
	wg.Wait()
	want := strconv.Itoa(workers * each)
	if got := s.line("ZSCORE z m"); got != "$"+strconv.Itoa(len(want))+"\r\n"+want+"\r\n" {
		t.Fatalf("ZSCORE after concurrent increments: %q, want %s", got, want)
	}
}
