package tests

import (
	"strconv"
	"testing"
	"time"
)

// TestSnapshotChangesCount: rdb_changes_since_last_save counts changed
// elements as Redis's dirty counter does, step by step the same as
// redis-server's: 5,000 new members are 5,000 changes, re-adding them
// unchanged none, moving 10 of them 10.
func TestSnapshotChangesCount(t *testing.T) {
	add := func(n, from int, lon float64) []string {
		args := []string{"GEOADD", "fleet"}
		for i := from; i < from+n; i++ {
			args = append(args, strconv.FormatFloat(lon+float64(i%100)/1000, 'f', 4, 64),
				strconv.FormatFloat(52+float64(i/100)/1000, 'f', 4, 64), "d"+strconv.Itoa(i))
		}
		return args
	}
	steps := [][]string{
		add(5000, 0, 4.8),
		add(5000, 0, 4.8),
		add(10, 0, 5.8),
		{"ZADD", "fleet", "XX", "CH", "1", "d1", "2", "nobody"},
		{"ZREM", "fleet", "d2", "d3", "nobody"},
		{"SET", "s", "v"},
		{"DEL", "s", "nothing"},
		{"GEOADD", "fleet", "NX", "1", "1", "d5"},
	}
	redis := startRedis(t)
	gs := startGeoshard(t, "geoshard")
	rr, gr := dialRaw(t, redis), dialRaw(t, gs)
	for _, args := range steps {
		if want, got := string(rr.mustDo(t, args...)), string(gr.mustDo(t, args...)); got != want {
			t.Fatalf("%.60s: redis %q, geoshard %q", quoteCommand(args), want, got)
		}
		want := infoField(t, rr, "persistence", "rdb_changes_since_last_save")
		if got := infoField(t, gr, "persistence", "rdb_changes_since_last_save"); got != want {
			t.Errorf("after %.60s: rdb_changes_since_last_save %s, redis %s", quoteCommand(args), got, want)
		}
	}
}

// TestSnapshotScheduleCountsElements: with save 1 100, one GEOADD of
// 5,000 members is enough for the scheduled save, so kill -9 loses none.
func TestSnapshotScheduleCountsElements(t *testing.T) {
	dir := t.TempDir()
	p := startSnap(t, "geoshard", dir, "--save", "1 100")
	rc := dialRaw(t, p)
	addMany(t, rc, "fleet", 5000)
	waitFor(t, 10*time.Second, "the scheduled save", func() bool {
		return infoField(t, rc, "persistence", "rdb_saves") == "1"
	})
	p.stop() // kill -9
	q := startSnap(t, "geoshard-restarted", dir)
	if r := string(dialRaw(t, q).mustDo(t, "ZCARD", "fleet")); r != ":5000\r\n" {
		t.Fatalf("ZCARD after kill -9 and a restart: %q", r)
	}
}
