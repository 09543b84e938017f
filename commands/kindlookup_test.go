package commands

import (
	"strings"
	"testing"
)

// TestKindAnswerStale: an answer a prepare step got before the lock is
// used only while no command through this node that could change a key
// of that name ran since; while no lookup is pending, writes leave the
// generations alone (a GEOADD then pays one atomic load).
func TestKindAnswerStale(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pending bool
		cmd     string
		stale   []string // names whose answer must no longer be used
		good    []string // names whose answer stays good
	}{
		{"GEOADD of the name", true, "GEOADD k 4.9 52.37 m", []string{"k"}, []string{"other"}},
		{"GEOADD, no lookup pending", false, "GEOADD k 4.9 52.37 m", nil, []string{"k", "other"}},
		{"ZADD of the name", true, "ZADD k 1 m", []string{"k"}, []string{"other"}},
		{"SET (the keyspace alone)", true, "SET k v", []string{"k"}, []string{"other"}},
		{"DEL of two names", true, "DEL k other", []string{"k", "other"}, []string{"third"}},
		{"RENAME", true, "RENAME src k", []string{"k", "src"}, []string{"other"}},
		{"GEORADIUS STORE names its destination past the key positions", true,
			"GEORADIUS src 4.9 52.37 10 km STORE k", []string{"k"}, []string{"other"}},
		{"FLUSHALL names no key: every answer", true, "FLUSHALL", []string{"k", "other"}, nil},
		{"a read changes nothing", true, "GET k", nil, []string{"k", "other"}},
		{"EXEC of reads changes nothing", true, "MULTI|GET k|TYPE other|PING|SELECT 2|EXEC", nil, []string{"k", "other"}},
		{"EXEC: its writes count one by one", true, "MULTI|GET other|GEOADD k 4.9 52.37 m|EXEC", []string{"k"}, []string{"other", "third"}},
		{"SAVE (the keyspace alone) adds or drops no key", true, "SAVE", nil, []string{"k"}},
		{"GEOSEARCH changes nothing", true, "GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 1 km", nil, []string{"k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.line("GEOADD src 4.9 52.37 a")
			asker := s.another()
			e := s.e
			if tc.pending {
				e.kinds.pending.Add(1) // as prepareKinds counts its lookup
				defer e.kinds.pending.Add(-1)
			}
			ans := &kindAnswers{epoch: e.kinds.epoch.Load()}
			for _, name := range append(append([]string{}, tc.stale...), tc.good...) {
				ans.list = append(ans.list, kindAnswer{name: name, geo: true,
					gen: e.kinds.gen[kindStripe(0, name)].Load()})
			}
			for _, cmd := range strings.Split(tc.cmd, "|") {
				if r := s.line(cmd); strings.HasPrefix(r, "-") || strings.Contains(r, "\r\n-") {
					t.Fatalf("%s: %q", cmd, r)
				}
			}
			asker.c.prepared = ans
			for _, name := range tc.stale {
				if _, _, ok := e.preparedGeo(asker.c, []byte(name)); ok {
					t.Errorf("after %s the answer for %s is still used", tc.cmd, name)
				}
			}
			for _, name := range tc.good {
				if geo, _, ok := e.preparedGeo(asker.c, []byte(name)); !ok || !geo {
					t.Errorf("after %s the answer for %s is not used (%v %v)", tc.cmd, name, geo, ok)
				}
			}
		})
	}
}

// TestKindPrepareSingleNode: in single-node mode the kind commands'
// prepare step asks nothing and counts no lookup: Card is local there.
func TestKindPrepareSingleNode(t *testing.T) {
	s := newSession(t)
	s.line("GEOADD k 4.9 52.37 m")
	for _, cmd := range []string{"SET n v", "GET k", "TYPE k", "EXISTS k n", "TTL k", "EXPIRE k 100", "PERSIST k", "RENAME n n2"} {
		s.line(cmd)
		words := strings.Fields(cmd)
		argv := make([][]byte, len(words))
		for i, w := range words {
			argv[i] = []byte(w)
		}
		table[strings.ToLower(words[0])].prepare(s.e, s.c, argv)
		if s.c.prepared != nil || s.c.kindLookups != 0 || s.e.kinds.pending.Load() != 0 {
			t.Errorf("%s in single-node mode: prepared %v, %d lookups, %d pending; want nothing",
				cmd, s.c.prepared, s.c.kindLookups, s.e.kinds.pending.Load())
		}
	}
}
